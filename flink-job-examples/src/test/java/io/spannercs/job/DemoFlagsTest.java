package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.job.SpannerCdcJob.DemoFlags;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The demo's flags: what it accepts, and a one-line error naming the flag otherwise. */
class DemoFlagsTest {

    @Test
    void readsDurationAndOutputInBothForms() {
        DemoFlags f = DemoFlags.parse(new String[] {"--duration", "30s", "--output=out"});
        assertThat(f.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(f.output()).isEqualTo(Path.of("out"));
        assertThat(DemoFlags.parse(new String[] {"--duration=2min"}).duration())
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(DemoFlags.parse(new String[] {"--duration", "1h"}).duration())
                .isEqualTo(Duration.ofHours(1));
        DemoFlags none = DemoFlags.parse(new String[0]);
        assertThat(none.duration()).as("until Ctrl-C").isNull();
        assertThat(none.output()).isEqualTo(Demo.defaultOutput());
    }

    @Test
    void aBadDurationNamesTheFlagAndTheAcceptedForm() {
        for (String bad : new String[] {"5x", "soon", "-5s", "5 x", "5ns"}) {
            assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--duration", bad}))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "--duration '"
                                    + bad
                                    + "' is not a duration: use a whole number and a unit, e.g."
                                    + " 500ms, 10s, 2min or 1h");
        }
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--duration", "0s"}))
                .hasMessage("--duration '0s' must be more than 0");
    }

    @Test
    void aDurationWithoutAUnitIsAnError() {
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--duration", "30"}))
                .hasMessage("--duration needs a unit, e.g. 10s; got '30'");
    }

    @Test
    void aMissingValueOrAnotherFlagIsNamed() {
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--duration"}))
                .hasMessage(
                        "--duration needs a value: use a whole number and a unit, e.g. 500ms,"
                                + " 10s, 2min or 1h");
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--output", "--duration", "5s"}))
                .hasMessage("--output needs a value: a DIR");
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--format", "avro"}))
                .hasMessageContaining("takes only --duration DURATION and --output DIR")
                .hasMessageContaining("got '--format'");
    }
}
