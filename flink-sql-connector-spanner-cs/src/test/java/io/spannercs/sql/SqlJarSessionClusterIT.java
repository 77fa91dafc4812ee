package io.spannercs.sql;

import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many jobs on one session cluster, each loading the SQL jar with {@code ADD JAR}: see {@link
 * SessionClusterJobs} for what must hold.
 */
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class SqlJarSessionClusterIT extends SessionClusterJobs {
    @Test
    void runsManyAddJarJobsAndLeavesNothingBehind() throws Exception {
        run(Paths.get("target", "session-cluster-it"), false, ADD_JAR_JOBS);
    }
}
