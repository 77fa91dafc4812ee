package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The SQL example's flags are checked as the job's are. */
class SqlRevenueJobFlagsTest {

    @Test
    void readsItsFlagsInBothForms() {
        assertThat(
                        SqlRevenueJob.flags(
                                new String[] {
                                    "--project",
                                    "p",
                                    "--instance=i",
                                    "--database",
                                    "d",
                                    "--emulator-host",
                                    "127.0.0.1:9010"
                                }))
                .containsEntry("project", "p")
                .containsEntry("instance", "i")
                .containsEntry("emulator-host", "127.0.0.1:9010");
    }

    @Test
    void anUnknownFlagIsAnErrorRatherThanIgnored() {
        // A typo in --emulator-host sent the job to real Spanner.
        assertThatThrownBy(
                        () ->
                                SqlRevenueJob.flags(
                                        new String[] {
                                            "--project",
                                            "p",
                                            "--instance",
                                            "i",
                                            "--database",
                                            "d",
                                            "--emulator-hots",
                                            "127.0.0.1:9010"
                                        }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown flag --emulator-hots")
                .hasMessageNotContaining("\n");
    }

    @Test
    void namesEveryMissingAndMalformedFlag() {
        assertThatThrownBy(
                        () ->
                                SqlRevenueJob.flags(
                                        new String[] {
                                            "stray", "--start-timestamp", "now", "--end-timestamp"
                                        }))
                .hasMessageContaining("unexpected argument 'stray'")
                .hasMessageContaining("--start-timestamp 'now' is not an RFC 3339 time")
                .hasMessageContaining("--end-timestamp needs a value")
                .hasMessageContaining("--project is required")
                .hasMessageContaining("--instance is required")
                .hasMessageContaining("--database is required");
    }
}
