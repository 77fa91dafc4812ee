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
        for (String bad : new String[] {"5x", "30", "soon", "0s", "-5s", "5 x"}) {
            assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--duration", bad}))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--duration '" + bad + "'")
                    .hasMessageContaining("e.g. --duration 30s, 2min or 1h")
                    .hasMessageNotContaining("\n")
                    .hasNoCause();
        }
    }

    @Test
    void aMissingValueOrAnotherFlagIsNamed() {
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--duration"}))
                .hasMessage(
                        "--duration needs a value: use a whole number and a unit, e.g."
                                + " --duration 30s, 2min or 1h");
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--output", "--duration", "5s"}))
                .hasMessage("--output needs a value: a DIR");
        assertThatThrownBy(() -> DemoFlags.parse(new String[] {"--format", "avro"}))
                .hasMessageContaining("takes only --duration DURATION and --output DIR")
                .hasMessageContaining("got '--format'");
    }
}
