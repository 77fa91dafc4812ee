package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.testing.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The official client logs with java.util.logging; with a client of the connector open, its records
 * go to SLF4J (log4j here, as in Flink) and not to java.util.logging's console, and its INFO
 * chatter (an options banner and a line per channel pool for every client) only at DEBUG.
 */
class ClientLoggingTest {
    private static SpannerEmulator emulator;

    /** What java.util.logging's own handlers (the console) would print. */
    private final List<LogRecord> console = new ArrayList<>();

    private final Handler consoleSpy =
            new Handler() {
                @Override
                public void publish(LogRecord record) {
                    synchronized (console) {
                        console.add(record);
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };

    @BeforeAll
    static void startEmulator() {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE Orders (OrderId INT64 NOT NULL) PRIMARY KEY"
                                        + " (OrderId);\n")
                        .start();
    }

    @AfterAll
    static void stopEmulator() {
        emulator.close();
    }

    @BeforeEach
    void spyOnTheConsole() {
        java.util.logging.Logger.getLogger("").addHandler(consoleSpy);
    }

    @AfterEach
    void removeSpy() {
        java.util.logging.Logger.getLogger("").removeHandler(consoleSpy);
    }

    private static SpannerSourceConfig config() {
        return TestConfigs.config(
                TestConfigs.onEmulator(emulator, "orders_cs", 0, SpannerSourceConfig.NO_END));
    }

    private static void useAClient() {
        Spanner spanner = SpannerClients.create(config());
        try {
            DatabaseClient client = SpannerClients.databaseClient(spanner, config());
            try (ResultSet rs = client.singleUse().executeQuery(Statement.of("SELECT 1"))) {
                while (rs.next()) {}
            }
            // As the client's libraries log a warning:
            java.util.logging.Logger.getLogger("com.google.cloud.spanner.SomeClass")
                    .warning("a warning of the client");
        } finally {
            SpannerClients.close(spanner, true);
        }
    }

    private List<String> consoleLines() {
        synchronized (console) {
            return console.stream().map(r -> r.getLoggerName() + " " + r.getMessage()).toList();
        }
    }

    @Test
    void quietAtInfoAndNothingOnTheConsole() {
        try (LogCapture log = new LogCapture(Map.of("com.google", Level.INFO))) {
            useAClient();

            assertThat(log.events())
                    .filteredOn(e -> e.logger().startsWith("com.google"))
                    .as("the client's records at INFO and above")
                    .extracting(LogCapture.Event::toString)
                    .containsExactly(
                            "WARN com.google.cloud.spanner.SomeClass a warning of the client");
        }
        assertThat(consoleLines()).isEmpty();
    }

    @Test
    void theClientsInfoLinesAreThereAtDebug() {
        try (LogCapture log = new LogCapture(Map.of("com.google.cloud", Level.DEBUG))) {
            useAClient();

            assertThat(log.events())
                    .filteredOn(e -> e.message().contains("Spanner options"))
                    .isNotEmpty()
                    .allSatisfy(e -> assertThat(e.level()).isEqualTo(Level.DEBUG));
        }
        assertThat(consoleLines()).isEmpty();
    }

    @Test
    void withNoClientOpenTheJvmsLoggingIsAsBefore() {
        useAClient();

        for (String root : ClientLogging.ROOTS) {
            java.util.logging.Logger jul = java.util.logging.Logger.getLogger(root);
            assertThat(jul.getHandlers()).as(root).isEmpty();
            assertThat(jul.getUseParentHandlers()).as(root).isTrue();
            assertThat(jul.getLevel()).as(root).isNull();
        }
    }
}
