package io.spannercs.benchmarks;

import io.spannercs.flink.source.enumerator.PartitionNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Where the time of a partition generation goes in the source: captures the DEBUG lines of the
 * reader's partition streams and of the enumerator during one job (all in this JVM, on one clock)
 * and, for every partition that is not a root, measures
 *
 * <ol>
 *   <li>report: its parents' queries ended (legacy) until the enumerator applied the last parent's
 *       end;
 *   <li>enumerator: the partition became ready (last parent finished, or announced by a
 *       PartitionStartRecord in mutable mode) until it was assigned;
 *   <li>delivery: assigned until the reader started its query;
 *   <li>first row: query started until its first row arrived (negative steps: the reader started
 *       the query ahead of the assignment);
 * </ol>
 *
 * <p>and how long move-in barriers (mutable mode) waited for their sources.
 */
final class GenerationTrace implements AutoCloseable {
    private static final String[] LOGGERS = {
        "io.spannercs.flink.source.reader.PartitionStream",
        "io.spannercs.flink.source.enumerator.ChangeStreamSplitEnumerator"
    };

    private static final Pattern QUERY_START = Pattern.compile("^Querying partition (\\S+) from ");
    private static final Pattern FIRST_ROW = Pattern.compile("^First row of partition (\\S+) ");
    private static final Pattern QUERY_DONE =
            Pattern.compile("^Query of partition (\\S+) completed");
    private static final Pattern FINISHED = Pattern.compile("^Partition (p:\\w+) finished at ");
    private static final Pattern ANNOUNCED =
            Pattern.compile("^Partition (p:\\w+|root) announced \\d+ partitions \\[([^\\]]*)\\]");
    private static final Pattern ASSIGNED = Pattern.compile("^Partition (\\S+) goes to subtask ");
    private static final Pattern RELEASED =
            Pattern.compile("^Releasing partition (\\S+) at (\\S+) after (\\d+) ms");

    private record Line(long micros, String message) {}

    private final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();
    private final AbstractAppender appender;

    /** Starts capturing. */
    GenerationTrace() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        appender =
                new AbstractAppender("generation-trace", null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent e) {
                        long micros =
                                e.getInstant().getEpochMillisecond() * 1000
                                        + e.getInstant().getNanoOfMillisecond() / 1000;
                        lines.add(new Line(micros, e.getMessage().getFormattedMessage()));
                    }
                };
        appender.start();
        for (String name : LOGGERS) {
            LoggerConfig logger = new LoggerConfig(name, Level.DEBUG, false);
            logger.addAppender(appender, Level.DEBUG, null);
            config.addLogger(name, logger);
        }
        ctx.updateLoggers();
    }

    @Override
    public void close() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        for (String name : LOGGERS) {
            ctx.getConfiguration().removeLogger(name);
        }
        ctx.updateLoggers();
        appender.stop();
    }

    /** Prints the medians (and 90th percentiles) of each step over every non-root partition. */
    void print(String label, boolean legacy) {
        List<Long> barrierWaits = new ArrayList<>();
        Map<String, Long> queryStart = new HashMap<>();
        Map<String, Long> firstRow = new HashMap<>();
        Map<String, Long> queryDone = new HashMap<>();
        Map<String, Long> finished = new HashMap<>();
        Map<String, Long> announced = new HashMap<>();
        Map<String, Long> assigned = new HashMap<>();
        Map<String, List<String>> parents = new HashMap<>();
        for (Line l : lines) {
            Matcher m;
            if ((m = QUERY_START.matcher(l.message())).find()) {
                queryStart.putIfAbsent(PartitionNames.of(m.group(1)), l.micros());
            } else if ((m = FIRST_ROW.matcher(l.message())).find()) {
                firstRow.putIfAbsent(PartitionNames.of(m.group(1)), l.micros());
            } else if ((m = QUERY_DONE.matcher(l.message())).find()) {
                queryDone.merge(PartitionNames.of(m.group(1)), l.micros(), Math::max);
            } else if ((m = FINISHED.matcher(l.message())).find()) {
                finished.putIfAbsent(m.group(1), l.micros());
            } else if ((m = ANNOUNCED.matcher(l.message())).find()) {
                for (String child : m.group(2).split(",\\s*")) {
                    announced.putIfAbsent(child.trim(), l.micros());
                    parents.computeIfAbsent(child.trim(), c -> new ArrayList<>()).add(m.group(1));
                }
            } else if ((m = ASSIGNED.matcher(l.message())).find()) {
                assigned.putIfAbsent(PartitionNames.of(m.group(1)), l.micros());
            } else if ((m = RELEASED.matcher(l.message())).find()) {
                barrierWaits.add(Long.parseLong(m.group(3)) * 1000);
            }
        }
        Map<String, Integer> queries = new HashMap<>();
        for (Line l : lines) {
            Matcher m = QUERY_START.matcher(l.message());
            if (m.find()) {
                queries.merge(m.group(1), 1, Integer::sum);
            }
        }
        List<Long> report = new ArrayList<>();
        List<Long> enumerator = new ArrayList<>();
        List<Long> delivery = new ArrayList<>();
        List<Long> first = new ArrayList<>();
        List<Long> total = new ArrayList<>();
        for (Map.Entry<String, Long> a : assigned.entrySet()) {
            String child = a.getKey();
            List<String> ps = parents.get(child);
            if (ps == null || ps.contains("root")) {
                continue; // a root partition
            }
            long ready = announced.get(child);
            long parentsDone = Long.MIN_VALUE;
            long parentsFinished = Long.MIN_VALUE;
            for (String p : ps) {
                parentsDone = Math.max(parentsDone, queryDone.getOrDefault(p, Long.MIN_VALUE));
                parentsFinished =
                        Math.max(parentsFinished, finished.getOrDefault(p, Long.MIN_VALUE));
            }
            // Legacy: ready once every parent finished; mutable: once announced.
            boolean waitsForParents = legacy && parentsFinished > ready;
            if (waitsForParents) {
                ready = parentsFinished;
                if (parentsDone != Long.MIN_VALUE) {
                    report.add(parentsFinished - parentsDone);
                }
            }
            enumerator.add(a.getValue() - ready);
            Long start = queryStart.get(child);
            Long row = firstRow.get(child);
            if (start != null) {
                delivery.add(start - a.getValue());
                if (row != null) {
                    first.add(row - start);
                    if (waitsForParents && parentsDone != Long.MIN_VALUE) {
                        total.add(row - parentsDone);
                    } else {
                        total.add(row - ready);
                    }
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "  %s, per generation (median / 90th percentile, ms; %d partitions):%n"
                        + "    report (parent query ended -> enumerator applied its end) %s%n"
                        + "    enumerator (ready -> assigned)                            %s%n"
                        + "    delivery (assigned -> reader started the query)            %s%n"
                        + "    first row (query started -> first row)                     %s%n"
                        + "    total (parent ended, or announced -> child's first row)     %s%n"
                        + "    move-in barriers: %d released, waited %s%n"
                        + "    partition queries: %d for %d partitions (windows, retries, reads"
                        + " ahead not taken over)%n",
                label,
                total.size(),
                stats(report),
                stats(enumerator),
                stats(delivery),
                stats(first),
                stats(total),
                barrierWaits.size(),
                stats(barrierWaits),
                queries.values().stream().mapToInt(Integer::intValue).sum(),
                queries.size());
    }

    private static String stats(List<Long> micros) {
        if (micros.isEmpty()) {
            return "-";
        }
        Collections.sort(micros);
        return String.format(
                Locale.ROOT,
                "%6.1f / %6.1f",
                micros.get(micros.size() / 2) / 1000.0,
                micros.get(micros.size() * 9 / 10) / 1000.0);
    }
}
