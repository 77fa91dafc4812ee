package io.spannercs.sql;

import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * The same with the SQL jar in the cluster's lib/ (the first way docs/sql.md gives): the clients of
 * all jobs come from one class loader, and nothing of a job may outlive it either (see {@link
 * SessionClusterJobs}), each job within {@link SessionClusterJobs#PER_JOB}.
 */
class SqlJarInLibSessionClusterIT extends SessionClusterJobs {
    @Test
    void runsJobsWithTheJarInLibAndLeavesNothingBehind() throws Exception {
        run(Paths.get("target", "session-cluster-it-lib"), true, LIB_JOBS);
    }
}
