package io.spannercs.flink.source.spanner;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.runtime.ObjectMethods;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets go of the last job's classes that Java 17 keeps in the method handles behind every record's
 * {@code toString}, {@code equals} and {@code hashCode}, so that the job's user-code class loader
 * can be collected once the job ends.
 *
 * <p>Before Java 18 (JDK-8078641), {@code MethodHandle.asType} keeps its last result strongly in
 * the handle. {@link ObjectMethods} adapts a few shared static handles ({@code Objects.toString},
 * {@code Objects.equals}, {@code Objects.hashCode} and reference equality) to the types of the
 * record components, and of the record, each time a record class's method is first called. So the
 * last record whose method was first called in a JVM, e.g. an operator event that Flink formatted
 * into a message, pins its class loader for as long as no other record comes. Measured on a session
 * cluster: a job's loader stayed alive in the JobManager through {@code
 * ObjectMethods.OBJECTS_TOSTRING.asTypeCache} and a record component of type {@code PartitionMode}.
 *
 * <p>{@link #release} builds the three methods once for {@link String} (a JDK class), which puts
 * JDK-only adaptations into those caches. On Java 18 and later it is harmless.
 */
@Internal
public final class RecordMethodCaches {
    private static final Logger LOG = LoggerFactory.getLogger(RecordMethodCaches.class);

    private static final List<String> METHODS = List.of("toString", "equals", "hashCode");

    private RecordMethodCaches() {}

    /** Replaces what the JDK's record method handles keep with JDK classes only. */
    public static void release() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            MethodHandle component =
                    lookup.findVirtual(
                            String.class, "toString", MethodType.methodType(String.class));
            for (String method : METHODS) {
                ObjectMethods.bootstrap(
                        lookup, method, MethodHandle.class, String.class, "value", component);
            }
        } catch (Throwable t) {
            // Only a class loader kept until the next record comes: never worth failing a close.
            LOG.debug("Could not release the JDK's record method handle caches", t);
        }
    }
}
