package io.spannercs.flink.format;

import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.util.Collector;

/**
 * Turns row changes into the source's output type. Emit zero, one or several values per change.
 *
 * @param <T> the output type
 */
@PublicEvolving
public interface ChangeEventDeserializer<T> extends Serializable, ResultTypeQueryable<T> {

    void deserialize(ChangeEvent event, Collector<T> out) throws Exception;

    /** Emits the {@link ChangeEvent}s themselves. */
    static ChangeEventDeserializer<ChangeEvent> changeEvents() {
        return new ChangeEventDeserializer<>() {
            @Override
            public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
                out.collect(event);
            }

            @Override
            public TypeInformation<ChangeEvent> getProducedType() {
                return ChangeEventTypeInfo.INSTANCE;
            }
        };
    }
}
