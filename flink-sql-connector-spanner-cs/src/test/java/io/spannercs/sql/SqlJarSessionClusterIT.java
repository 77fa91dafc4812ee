package io.spannercs.sql;

import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * Many jobs on one session cluster, each loading the SQL jar with {@code ADD JAR}: see {@link
 * SessionClusterJobs} for what must hold. Each job has {@link SessionClusterJobs#PER_JOB}, the
 * whole run a bound that follows from the number of jobs ({@code -DsessionClusterIT.jobs=N}, 6 by
 * default).
 */
class SqlJarSessionClusterIT extends SessionClusterJobs {
    @Test
    void runsManyAddJarJobsAndLeavesNothingBehind() throws Exception {
        run(Paths.get("target", "session-cluster-it"), false, ADD_JAR_JOBS);
    }
}
