package io.spannercs.job.pubsub;

import java.io.IOException;

/**
 * A message the Pub/Sub sink could not publish: the writer fails, naming the topic, and the job
 * restarts from its last checkpoint (publishing its changes again). Its cause is a copy of the
 * client's error that keeps message and stack trace, since gRPC's exceptions do not serialize.
 */
public class PubSubPublishException extends IOException {
    private static final long serialVersionUID = 1L;

    public PubSubPublishException(String message, Throwable cause) {
        super(message, serializable(cause));
    }

    static Throwable serializable(Throwable t) {
        if (t == null) {
            return null;
        }
        Exception copy = new Exception(t.toString(), serializable(t.getCause()));
        copy.setStackTrace(t.getStackTrace());
        return copy;
    }

    /**
     * A publish failure a restart cannot fix (a missing topic, no permission): Flink fails the job
     * at once, whatever its restart strategy.
     */
    @org.apache.flink.runtime.throwable.ThrowableAnnotation(
            org.apache.flink.runtime.throwable.ThrowableType.NonRecoverableError)
    public static final class NonRecoverable extends PubSubPublishException {
        private static final long serialVersionUID = 1L;

        public NonRecoverable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
