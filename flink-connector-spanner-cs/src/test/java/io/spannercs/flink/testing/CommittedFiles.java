package io.spannercs.flink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * What the savepoint tests share: an exactly-once sink of text lines (files finish with checkpoints
 * and savepoints), the lines of the files it finished, and a job environment restored from a
 * savepoint.
 */
public final class CommittedFiles {
    private CommittedFiles() {}

    /** Lines written to files under {@code dir}, each finished by a checkpoint or savepoint. */
    public static FileSink<String> sink(Path dir) {
        return FileSink.forRowFormat(
                        new org.apache.flink.core.fs.Path(dir.toUri()),
                        new SimpleStringEncoder<String>(StandardCharsets.UTF_8.name()))
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .build();
    }

    /**
     * The files the sink finished under {@code dir}; in-progress and pending ones are hidden. A
     * running job renames and removes its hidden files while the directory is read: a walk that
     * meets one gone is read again (finished files are never removed, so nothing is missed).
     */
    public static List<Path> finished(Path dir) throws IOException {
        while (true) {
            if (!Files.exists(dir)) {
                return List.of();
            }
            try (Stream<Path> files = Files.walk(dir)) {
                return files.filter(Files::isRegularFile)
                        .filter(f -> !f.getFileName().toString().startsWith("."))
                        .toList();
            } catch (NoSuchFileException | UncheckedIOException e) {
                if (!(e instanceof NoSuchFileException)
                        && !(e.getCause() instanceof NoSuchFileException)) {
                    throw e;
                }
            }
        }
    }

    /** The lines of every finished file under {@code dir}. */
    public static List<String> lines(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (Path f : finished(dir)) {
            out.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * A job environment at {@code parallelism} checkpointing every 200 ms, restored from {@code
     * savepoint} unless it is null.
     */
    public static StreamExecutionEnvironment environment(String savepoint, int parallelism) {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(200);
        return env;
    }
}
