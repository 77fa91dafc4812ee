package io.spannercs.emulator.changestream;

import com.google.protobuf.ByteString;
import com.google.protobuf.Value;
import io.grpc.StatusRuntimeException;

/** Where a change stream query sends its rows: a gRPC stream, with its flow control. */
public interface RowSink {
    /** Whether the receiver can take another row now. */
    boolean isReady();

    /** Registers a callback for when the receiver can take rows again. */
    void setOnReady(Runnable onReady);

    /** Registers a callback for when the receiver cancels. */
    void setOnCancel(Runnable onCancel);

    /** Sends one row (the single column {@code ChangeRecord}) with its resume token. */
    void sendRow(Value row, ByteString resumeToken);

    void complete();

    void fail(StatusRuntimeException error);
}
