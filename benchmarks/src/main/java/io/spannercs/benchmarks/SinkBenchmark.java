package io.spannercs.benchmarks;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.job.pubsub.PubSubEmulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * Changes/s from the source into a message bus through the job jar's sink, against a plain client
 * writing the same serialized events. N row changes are preloaded into the emulator once; then, in
 * one run and in interleaved rounds (warm-up rounds first, the median counts), each target
 * measures:
 *
 * <ul>
 *   <li>(a) a plain client ({@code KafkaProducer}, or Pub/Sub's {@code Publisher} with the job's
 *       settings) sending the N events, serialized before the clock starts, to a fresh topic;
 *   <li>(b) the job jar's pipeline ({@code SpannerCdcJob.attach}: source, keyed reorder in commit
 *       order, the Kafka sink exactly once or the Pub/Sub sink) in a bounded local Flink job, from
 *       submission to its end (its last transaction committed, or every message acknowledged);
 *   <li>(c) the source alone into a discarding sink, timed the same way: what the job costs without
 *       the reorder and the sink.
 * </ul>
 *
 * <p>Every round's topic is read back afterwards (Kafka with {@code read_committed}; Pub/Sub by
 * distinct event id) and must hold exactly the N changes, or the benchmark fails.
 */
public final class SinkBenchmark {
    private SinkBenchmark() {}

    /** Where the changes go. */
    enum Target {
        KAFKA,
        PUBSUB
    }

    /** Settings from the command line. */
    record Settings(
            List<Target> targets,
            long changes,
            int partitions,
            int parallelism,
            int rounds,
            int warmup,
            Duration checkpointInterval,
            int kafkaPartitions,
            Duration timeout) {}

    /** One target's two writers. */
    interface Writers extends AutoCloseable {
        /** Label of the plain client. */
        String plainName();

        /** Writes the events with the plain client into a fresh topic; returns the nanoseconds. */
        long plain(int round) throws Exception;

        /** Runs the job into a fresh topic; returns the nanoseconds. */
        long job(int round) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = new BenchArgs(args);
        List<Target> targets = new ArrayList<>();
        for (String t : a.string("target", "kafka,pubsub", "kafka, pubsub or both").split(",")) {
            String name = t.trim().toUpperCase(Locale.ROOT);
            try {
                targets.add(Target.valueOf(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "--target must be kafka, pubsub or kafka,pubsub; got '" + t + "'");
            }
        }
        Settings s =
                new Settings(
                        targets,
                        a.longValue("changes", 20_000, "row changes preloaded and written"),
                        a.intValue("partitions", 4, "change stream partitions of the emulator"),
                        a.intValue("parallelism", 2, "job parallelism; also the plain writers"),
                        a.intValue("rounds", 3, "measured rounds per writer; the median counts"),
                        a.intValue("warmup", 1, "rounds per writer before measuring"),
                        a.duration(
                                "checkpoint-interval",
                                "1s",
                                "the job's checkpoints (Kafka commits on them)"),
                        a.intValue("kafka-partitions", 4, "partitions of every Kafka topic"),
                        a.duration("timeout", "5m", "longest one job or read-back may take"));
        if (!a.finish("SinkBenchmark")) {
            return;
        }
        BenchReport.machine(System.out);
        System.out.printf(
                Locale.ROOT,
                "N = %,d row changes over %d partitions, job parallelism %d (plain writers: %d"
                        + " threads), checkpoints every %d ms, %d warm-up + %d measured rounds,"
                        + " interleaved; median%n%n",
                s.changes(),
                s.partitions(),
                s.parallelism(),
                s.parallelism(),
                s.checkpointInterval().toMillis(),
                s.warmup(),
                s.rounds());
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(BenchSchema.DDL)
                        .initialPartitions(s.partitions())
                        .maxPartitions(s.partitions())
                        .start()) {
            Preloader.Preloaded pre =
                    Preloader.preload(emulator.database(), s.changes(), 1, s.changes());
            System.out.printf(
                    Locale.ROOT,
                    "Preloaded %,d changes in %.1f s%n",
                    pre.rowChanges(),
                    pre.elapsed().toMillis() / 1000.0);
            List<ChangeEvent> events = readAll(emulator, pre, s.parallelism());
            SinkJobRun run = new SinkJobRun(emulator, pre, s);
            for (Target t : s.targets()) {
                try (Writers w = writers(t, run, events, s)) {
                    if (w != null) {
                        measure(t, w, run, s);
                    }
                }
            }
        }
        System.exit(0); // Flink, gRPC and the Kafka test kit leave non-daemon threads behind
    }

    /** The preloaded changes as the source emits them, for the plain clients to send. */
    private static List<ChangeEvent> readAll(
            SpannerEmulator emulator, Preloader.Preloaded pre, int parallelism) throws Exception {
        StreamExecutionEnvironment env = FlinkJobs.localEnvironment(parallelism, false);
        List<ChangeEvent> events = new ArrayList<>();
        try (CloseableIterator<ChangeEvent> it =
                env.fromSource(
                                FlinkJobs.source(emulator, pre.startMicros())
                                        .setEndTimestamp(FlinkJobs.instant(pre.endMicros()))
                                        .build(),
                                WatermarkStrategy.noWatermarks(),
                                "spanner")
                        .executeAndCollect("collect the changes")) {
            it.forEachRemaining(events::add);
        } finally {
            env.close();
        }
        if (events.size() != pre.rowChanges()) {
            throw new IllegalStateException(
                    "Read "
                            + events.size()
                            + " changes but "
                            + pre.rowChanges()
                            + " were committed");
        }
        // In commit order, as the job's reorder releases them.
        events.sort(Comparator.comparing(ChangeEvent::getCommitTimestamp));
        return events;
    }

    private static Writers writers(Target t, SinkJobRun run, List<ChangeEvent> events, Settings s)
            throws Exception {
        DatastreamContext context = run.datastreamContext();
        if (t == Target.KAFKA) {
            return new KafkaWriters(KafkaBroker.start(), run, events, context, s);
        }
        Optional<Path> launcher = PubSubEmulator.locate();
        if (launcher.isEmpty()) {
            System.out.println("SKIPPED pubsub: " + PubSubEmulator.notInstalled());
            return null;
        }
        return new PubSubWriters(PubSubEmulator.start(launcher.get()), run, events, context, s);
    }

    private enum Writer {
        PLAIN,
        JOB,
        SOURCE
    }

    /** Writers per round: round numbers go up to (warm-up + measured rounds) times this. */
    static final int WRITERS = Writer.values().length;

    private static void measure(Target t, Writers w, SinkJobRun run, Settings s) throws Exception {
        Map<Writer, List<Double>> rates = new EnumMap<>(Writer.class);
        int round = 0;
        for (int r = 0; r < s.warmup() + s.rounds(); r++) {
            boolean warm = r < s.warmup();
            // Rotated, so that no writer always runs first or last.
            for (int i = 0; i < Writer.values().length; i++) {
                Writer writer = Writer.values()[(i + r) % Writer.values().length];
                round++;
                long nanos =
                        switch (writer) {
                            case PLAIN -> w.plain(round);
                            case JOB -> w.job(round);
                            case SOURCE -> run.sourceOnly();
                        };
                double perSecond = s.changes() * 1e9 / nanos;
                System.out.printf(
                        Locale.ROOT,
                        "%s %s round %d %-6s %,.0f changes/s (%.2f s)%n",
                        t.name().toLowerCase(Locale.ROOT),
                        warm ? "warm-up" : "measured",
                        r + 1,
                        writer.name().toLowerCase(Locale.ROOT),
                        perSecond,
                        nanos / 1e9);
                if (!warm) {
                    rates.computeIfAbsent(writer, k -> new ArrayList<>()).add(perSecond);
                }
            }
        }
        double a = median(rates.get(Writer.PLAIN));
        double b = median(rates.get(Writer.JOB));
        double c = median(rates.get(Writer.SOURCE));
        System.out.printf(
                Locale.ROOT,
                "%n%s, N=%,d, median of %d: a (%s) %,.0f/s  b (job, %s) %,.0f/s  c (source"
                        + " alone) %,.0f/s  b/a %.2f  b/c %.2f%n%n",
                t.name().toLowerCase(Locale.ROOT),
                s.changes(),
                s.rounds(),
                w.plainName(),
                a,
                t == Target.KAFKA ? "exactly once" : "at least once",
                b,
                c,
                b / a,
                b / c);
    }

    private static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
