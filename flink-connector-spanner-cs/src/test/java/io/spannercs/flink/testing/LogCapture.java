package io.spannercs.flink.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Records what reaches log4j (i.e. what SLF4J logs in the tests and in Flink) for a test, with the
 * levels of some loggers set for its duration. Restores the configuration on close.
 */
public final class LogCapture implements AutoCloseable {
    /** One recorded event. */
    public record Event(String logger, Level level, String message, Throwable thrown) {
        @Override
        public String toString() {
            return level + " " + logger + " " + message;
        }
    }

    private final List<Event> events = new ArrayList<>();
    private final AbstractAppender appender;
    private final Map<String, Level> previous = new HashMap<>();

    /**
     * @param levels logger names to the level they log at during the capture
     */
    public LogCapture(Map<String, Level> levels) {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender =
                new AbstractAppender(
                        "capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        synchronized (events) {
                            events.add(
                                    new Event(
                                            event.getLoggerName(),
                                            event.getLevel(),
                                            event.getMessage().getFormattedMessage(),
                                            event.getThrown()));
                        }
                    }
                };
        appender.start();
        config.addAppender(appender);
        levels.forEach(
                (name, level) -> {
                    LoggerConfig existing = config.getLoggerConfig(name);
                    previous.put(
                            name, existing.getName().equals(name) ? existing.getLevel() : null);
                    Configurator.setLevel(name, level);
                });
        // The test configurations' loggers are additive: the root sees every event.
        config.getRootLogger().addAppender(appender, Level.ALL, null);
        context.updateLoggers();
    }

    public List<Event> events() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        config.getRootLogger().removeAppender(appender.getName());
        previous.forEach(
                (name, level) -> {
                    if (level == null) {
                        config.removeLogger(name);
                    } else {
                        Configurator.setLevel(name, level);
                    }
                });
        context.updateLoggers();
        appender.stop();
    }
}
