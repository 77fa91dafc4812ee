package io.spannercs.sql;

import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The same with the SQL jar in the cluster's lib/ (the first way docs/sql.md gives): the clients of
 * all jobs come from one class loader, and nothing of a job may outlive it either (see {@link
 * SessionClusterJobs}).
 */
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class SqlJarInLibSessionClusterIT extends SessionClusterJobs {
    @Test
    void runsJobsWithTheJarInLibAndLeavesNothingBehind() throws Exception {
        run(Paths.get("target", "session-cluster-it-lib"), true, LIB_JOBS);
    }
}
