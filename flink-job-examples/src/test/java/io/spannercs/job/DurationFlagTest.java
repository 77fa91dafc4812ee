package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One duration syntax: the job's and the demo's copy reads every form as the emulator's does. */
class DurationFlagTest {
    private static final List<String> FORMS =
            List.of(
                    "500ms",
                    "10s",
                    "10 s",
                    "10S",
                    "2min",
                    "2m",
                    "1h",
                    "1d",
                    "3 seconds",
                    "90sec",
                    "1hour",
                    "2days",
                    "0s",
                    "10",
                    "0",
                    "-5s",
                    "1.5s",
                    "5x",
                    "5ns",
                    "",
                    "s",
                    "2 min",
                    "99999999999999999999s");

    @Test
    void readsEveryFormAsTheEmulatorDoes() {
        for (String form : FORMS) {
            Object job = outcome(() -> DurationFlag.parse("--flag", form, true));
            Object emulator =
                    outcome(() -> io.spannercs.emulator.DurationFlag.parse("--flag", form, true));
            assertThat(job).as(form).isEqualTo(emulator);
        }
    }

    @Test
    void aNumberWithoutAUnitIsAnErrorNamingTheFlag() {
        assertThatThrownBy(() -> DurationFlag.parse("--checkpoint-interval", "10", false))
                .hasMessage("--checkpoint-interval needs a unit, e.g. 10s; got '10'");
        assertThat(DurationFlag.parse("--x", "2min", false)).isEqualTo(Duration.ofMinutes(2));
        assertThat(DurationFlag.parse("--x", "10 s", false)).isEqualTo(Duration.ofSeconds(10));
    }

    /** The duration, or the error's message. */
    private static Object outcome(java.util.function.Supplier<Duration> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
