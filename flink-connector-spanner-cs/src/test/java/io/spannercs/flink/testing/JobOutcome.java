package io.spannercs.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.scheduler.ExecutionGraphInfo;
import org.apache.flink.runtime.scheduler.exceptionhistory.RootExceptionHistoryEntry;
import org.apache.flink.util.ExceptionUtils;

/**
 * What became of a job that should fail once: its end state, failure, restarts and how long it ran,
 * for tests of errors a restart cannot fix, run with a restart strategy that would restart the job
 * forever.
 *
 * @param state the job's end state (CANCELED if it still ran after the wait and was cancelled)
 * @param failure the job's failure; for a job cancelled after restarts, its first failure
 * @param restarts see {@link #restarts(ExecutionGraphInfo)}
 * @param history the failures of the job's exception history, as stack traces
 */
public record JobOutcome(
        JobStatus state,
        Throwable failure,
        int restarts,
        Duration took,
        java.util.List<String> history) {
    /** How long a job that cannot run may take to fail. */
    public static final Duration FAILS_WITHIN = Duration.ofSeconds(30);

    /**
     * Restarts allowed without limit, 100 ms apart: a job that fails with an error a restart can
     * fix restarts forever, as under Flink's default (exponential-delay) strategy with checkpoints.
     */
    public static Configuration restartingForever() {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        return c;
    }

    /**
     * Waits at most {@link #FAILS_WITHIN} for the job submitted at {@code submittedNanos} ({@link
     * System#nanoTime()}) to end; a job still running then is cancelled.
     */
    public static JobOutcome await(MiniCluster cluster, JobClient job, long submittedNanos)
            throws Exception {
        Throwable failure = null;
        try {
            job.getJobExecutionResult().get(FAILS_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            failure = e.getCause();
        } catch (TimeoutException e) {
            job.cancel().get();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - submittedNanos);
        JobID id = job.getJobID();
        // The job's end state, once the cancellation of a job that kept restarting went through.
        JobStatus state = job.getJobStatus().get();
        while (!state.isGloballyTerminalState()) {
            Thread.sleep(50);
            state = job.getJobStatus().get();
        }
        ExecutionGraphInfo info = cluster.getExecutionGraphInfo(id).get();
        if (failure == null) {
            // A job cancelled after restarts: its first failure says why it restarted.
            for (RootExceptionHistoryEntry e : info.getExceptionHistory()) {
                failure = e.getException();
                break;
            }
        }
        java.util.List<String> history = new java.util.ArrayList<>();
        for (RootExceptionHistoryEntry e : info.getExceptionHistory()) {
            history.add(ExceptionUtils.stringifyException(e.getException()));
        }
        return new JobOutcome(state, failure, restarts(info), took, history);
    }

    /**
     * Restarts of the job: the greatest attempt number of any task (a task restarted by a region or
     * global failover runs a new attempt), or the failures in the exception history before the
     * last, whichever is greater.
     */
    public static int restarts(ExecutionGraphInfo info) {
        int attempts = 0;
        for (AccessExecutionVertex v : info.getArchivedExecutionGraph().getAllExecutionVertices()) {
            attempts = Math.max(attempts, v.getCurrentExecutionAttempt().getAttemptNumber());
        }
        int failures = 0;
        for (RootExceptionHistoryEntry ignored : info.getExceptionHistory()) {
            failures++;
        }
        boolean failed = info.getArchivedExecutionGraph().getState() == JobStatus.FAILED;
        return Math.max(attempts, failed ? failures - 1 : failures);
    }

    /** The failure with its causes, as a stack trace. */
    public String text() {
        return failure == null ? "" : ExceptionUtils.stringifyException(failure);
    }

    /**
     * The job failed within {@link #FAILS_WITHIN}, without a restart, with a failure Flink does not
     * restart for, whose text has every part and no relocated class name.
     */
    public void assertFailedOnceWith(String... parts) {
        assertThat(state)
                .as(
                        "job state after %s s (%d restarts; failure: %s)",
                        took.toSeconds(), restarts, text())
                .isEqualTo(JobStatus.FAILED);
        assertThat(restarts).as("restarts; the job's failures: %s", history).isZero();
        assertThat(took).isLessThan(FAILS_WITHIN);
        assertThat(ExecutionFailureHandler.isUnrecoverableError(failure))
                .as("Flink sees the failure as one a restart cannot fix: %s", text())
                .isTrue();
        assertThat(text()).contains(parts);
        assertThat(text()).doesNotContain("io.spannercs.shaded");
    }
}
