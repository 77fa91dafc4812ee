package io.spannercs.flink.source.testsuite;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeType;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

/**
 * Emits the payload column of each inserted or updated row: the test record a split writer wrote.
 * Deletes are never written by the suite; one would fail the job, so a stray change cannot go
 * unnoticed.
 */
final class PayloadDeserializer implements ChangeEventDeserializer<String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ChangeEvent event, Collector<String> out) {
        if (event.getChangeType() == ChangeType.DELETE
                || !SpannerEmulatorExternalSystem.TABLE.equals(event.getTable())) {
            throw new IllegalStateException("The suite never writes " + event);
        }
        Object payload = event.getNewValues().get(SpannerEmulatorExternalSystem.PAYLOAD_COLUMN);
        if (!(payload instanceof String)) {
            throw new IllegalStateException("No string payload in " + event);
        }
        out.collect((String) payload);
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }
}
