package io.spannercs.shaded.io.grpc;

/**
 * Stands for gRPC's StatusRuntimeException as the SQL jar relocates it, so that tests see what
 * users of the SQL jar would see.
 */
public final class RelocatedStatusException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RelocatedStatusException(String message) {
        super(message);
    }
}
