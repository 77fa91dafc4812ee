package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.apache.flink.table.api.ValidationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The timestamp forms the table's timestamp options accept, and what they mean. */
class OptionValuesTest {
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "2026-12-03 04:00:00 | 2026-12-03T04:00:00Z",
                "2026-12-03T04:00:00 | 2026-12-03T04:00:00Z",
                "2026-12-03T04:00:00Z | 2026-12-03T04:00:00Z",
                "2026-12-03 04:00 | 2026-12-03T04:00:00Z",
                "2026-12-03 | 2026-12-03T00:00:00Z",
                "2026-12-03 04:00:00.5 | 2026-12-03T04:00:00.500Z",
                "2026-12-03 04:00:00.123456789 | 2026-12-03T04:00:00.123456789Z",
                "2026-12-03 04:00:00+01:00 | 2026-12-03T03:00:00Z",
                "2026-12-03 04:00:00 +0130 | 2026-12-03T02:30:00Z",
                "2026-12-03T04:00:00-05 | 2026-12-03T09:00:00Z",
                "2026-12-03 04:00:00 UTC | 2026-12-03T04:00:00Z",
                "2026-12-03 04:00:00 Europe/Berlin | 2026-12-03T03:00:00Z",
                "2026-07-03 04:00:00 Europe/Berlin | 2026-07-03T02:00:00Z",
                "' 2026-12-03 04:00:00 ' | 2026-12-03T04:00:00Z"
            })
    void acceptsTheCommonSqlForms(String text, String expected) {
        assertThat(OptionValues.timestamp(SpannerCdcOptions.SCAN_STARTUP_TIMESTAMP, text))
                .isEqualTo(Instant.parse(expected));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "now",
                "2026-12-03 4:00",
                "2026-12-03 04:00:00.1234567890",
                "2026-02-30 04:00:00",
                "2026-12-03 24:00:00",
                "03.12.2026 04:00",
                "1764734400000"
            })
    void rejectsOtherTextNamingTheOptionAndTheForms(String text) {
        assertThatThrownBy(() -> OptionValues.timestamp(SpannerCdcOptions.SCAN_END_TIMESTAMP, text))
                .isInstanceOf(ValidationException.class)
                .hasNoCause()
                .hasMessageContaining("'scan.end.timestamp' = '" + text + "'")
                .hasMessageContaining("'2026-03-01 12:00:00'");
    }
}
