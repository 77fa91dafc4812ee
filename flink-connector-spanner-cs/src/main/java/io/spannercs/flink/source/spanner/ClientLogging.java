package io.spannercs.flink.source.spanner;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the official client's java.util.logging output (the client, gax, grpc-gcp, gRPC,
 * OpenTelemetry, OpenCensus, auth) to SLF4J, i.e. to Flink's log4j configuration, instead of
 * java.util.logging's console handler (the SQL client's console, the JVMs' stdout).
 *
 * <p>Quiet by default: the client logs a banner of options and one line per gRPC channel pool at
 * INFO for every client it creates, so its INFO (and CONFIG) records arrive at SLF4J's DEBUG; its
 * WARNING and SEVERE records at WARN and ERROR, FINE and below at TRACE. To see the client's INFO
 * lines, set the log4j level of {@code com.google.cloud} to DEBUG (levels are read from log4j's
 * configuration for the prefixes in {@link #ROOTS} when the first client opens).
 *
 * <p>java.util.logging loggers are global to the JVM, while this class exists once per class loader
 * (once per job when the connector comes with the job). Each class loader adds its own handler
 * while it has open clients and removes it when its last client closes, so no handler keeps a
 * finished job's class loader alive; when several are attached, only the first forwards a record,
 * so nothing is logged twice.
 */
@Internal
public final class ClientLogging {

    /** Logger name prefixes of the client's libraries. gRPC's name follows its relocation. */
    @VisibleForTesting
    static final List<String> ROOTS =
            List.of(
                    "com.google.cloud",
                    "com.google.api",
                    "com.google.auth",
                    io.grpc.Status.class.getPackageName(),
                    "io.opentelemetry",
                    "io.opencensus");

    private static final List<java.util.logging.Logger> installed = new ArrayList<>();
    private static final Bridge[] handlers = new Bridge[ROOTS.size()];

    private ClientLogging() {}

    /** Attaches this class loader's handler; called with the first open client. */
    static synchronized void install() {
        if (!installed.isEmpty()) {
            return;
        }
        for (int i = 0; i < ROOTS.size(); i++) {
            java.util.logging.Logger jul = java.util.logging.Logger.getLogger(ROOTS.get(i));
            Bridge handler = new Bridge(jul);
            synchronized (jul) {
                jul.addHandler(handler);
                jul.setUseParentHandlers(false);
                jul.setLevel(threshold(ROOTS.get(i)));
            }
            handlers[i] = handler;
            installed.add(jul); // held: an unreferenced JUL logger forgets its settings
        }
    }

    /** Detaches this class loader's handler; called when its last client has closed. */
    static synchronized void uninstall() {
        for (int i = 0; i < installed.size(); i++) {
            java.util.logging.Logger jul = installed.get(i);
            synchronized (jul) {
                jul.removeHandler(handlers[i]);
                if (bridges(jul).isEmpty()) {
                    // No other class loader's connector bridges it: back to the JVM's defaults.
                    jul.setUseParentHandlers(true);
                    jul.setLevel(null);
                }
            }
            handlers[i] = null;
        }
        installed.clear();
    }

    /**
     * The lowest JUL level whose records SLF4J would log under that name, so the client does not
     * even build the records that would be dropped.
     */
    private static Level threshold(String name) {
        Logger slf4j = LoggerFactory.getLogger(name);
        if (slf4j.isTraceEnabled()) {
            return Level.ALL;
        } else if (slf4j.isDebugEnabled()) {
            return Level.CONFIG;
        } else if (slf4j.isWarnEnabled()) {
            return Level.WARNING;
        }
        return Level.SEVERE;
    }

    /** Handlers of this kind on the logger, from any class loader, in order. */
    private static List<Handler> bridges(java.util.logging.Logger jul) {
        List<Handler> out = new ArrayList<>();
        for (Handler h : jul.getHandlers()) {
            if (h.getClass().getName().equals(Bridge.class.getName())) {
                out.add(h);
            }
        }
        return out;
    }

    /** Forwards java.util.logging records to SLF4J under the same logger name. */
    static final class Bridge extends Handler {
        private static final Formatter MESSAGE =
                new Formatter() {
                    @Override
                    public String format(LogRecord record) {
                        return formatMessage(record);
                    }
                };

        private final java.util.logging.Logger attachedTo;

        Bridge(java.util.logging.Logger attachedTo) {
            this.attachedTo = attachedTo;
        }

        @Override
        public void publish(LogRecord record) {
            if (record == null) {
                return;
            }
            List<Handler> bridges = bridges(attachedTo);
            if (!bridges.isEmpty() && bridges.get(0) != this) {
                return; // another class loader's bridge forwards it
            }
            String name = record.getLoggerName() != null ? record.getLoggerName() : "";
            Logger slf4j = LoggerFactory.getLogger(name);
            int level = record.getLevel().intValue();
            String message;
            try {
                message = MESSAGE.format(record);
            } catch (RuntimeException e) {
                message = String.valueOf(record.getMessage());
            }
            Throwable thrown = record.getThrown();
            if (level >= Level.SEVERE.intValue()) {
                slf4j.error(message, thrown);
            } else if (level >= Level.WARNING.intValue()) {
                slf4j.warn(message, thrown);
            } else if (level >= Level.CONFIG.intValue()) {
                slf4j.debug(message, thrown);
            } else {
                slf4j.trace(message, thrown);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
