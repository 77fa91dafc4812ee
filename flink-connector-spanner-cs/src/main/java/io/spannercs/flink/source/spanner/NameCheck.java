package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.SpannerException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.annotation.Internal;

/**
 * Asks the database, before a job is submitted, whether the names it was given exist: the database,
 * and the change stream in {@code information_schema.change_streams}. One query on a {@link
 * LazySpannerClient} of its own, so a typo fails at once on the command line instead of in the
 * running job. Only a definite answer counts: a check that cannot be made (no answer, credentials
 * the submitting machine lacks, no permission) says why and leaves the decision to the job.
 */
@Internal
public final class NameCheck {
    private NameCheck() {}

    /** What the check found missing. */
    public enum Missing {
        DATABASE,
        CHANGE_STREAM
    }

    /**
     * The outcome of a check.
     *
     * @param missing what does not exist, or null if both exist, or the check could not be made
     * @param detail Spanner's answer, the streams the database has, or why there was no check
     */
    public record Result(Missing missing, String detail, boolean checked) {
        public boolean ok() {
            return checked && missing == null;
        }
    }

    /** Checks the names of {@code config}, waiting at most {@code timeout} for the answer. */
    public static Result check(SpannerSourceConfig config, Duration timeout) {
        FutureTask<Result> task = new FutureTask<>(() -> checkOnThisThread(config));
        // On a thread of its own: the client leaves thread locals behind, and a check that gets
        // no answer is left to end by itself.
        Thread t = new Thread(task, "spanner-cs-name-check");
        t.setDaemon(true);
        t.setContextClassLoader(Thread.currentThread().getContextClassLoader());
        t.start();
        try {
            return task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return new Result(null, "no answer within " + timeout.toSeconds() + " s", false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(null, "interrupted", false);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String message =
                    cause instanceof SpannerException s
                            ? SpannerErrors.describe(s)
                            : SpannerErrors.withoutRelocation(String.valueOf(cause.getMessage()));
            return new Result(null, message, false);
        }
    }

    private static Result checkOnThisThread(SpannerSourceConfig config) {
        // Not waiting for the client's threads when it closes: they end within about a second.
        try (LazySpannerClient spanner =
                LazySpannerClient.ownClient(
                        () -> SpannerClients.create(config), "The name check", false)) {
            DatabaseClient client = SpannerClients.databaseClient(spanner.get(), config);
            List<String> streams;
            try {
                streams = ChangeStreamNames.list(client);
            } catch (SpannerException e) {
                if (SpannerErrors.isDatabaseNotFound(e)) {
                    return new Result(Missing.DATABASE, SpannerErrors.describe(e), true);
                }
                throw e;
            }
            // GoogleSQL resolves names in any case. (PostgreSQL's query quotes the name, so there
            // the case matters; the job then says so itself.)
            if (streams.stream().anyMatch(name -> name.equalsIgnoreCase(config.changeStream()))) {
                return new Result(null, "", true);
            }
            return new Result(
                    Missing.CHANGE_STREAM,
                    streams.isEmpty() ? "it has none" : "it has " + String.join(", ", streams),
                    true);
        }
    }
}
