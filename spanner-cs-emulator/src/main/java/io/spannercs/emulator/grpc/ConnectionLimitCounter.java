package io.spannercs.emulator.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the calls open on each connection (keyed by the client's address) and reports each call
 * that brings a connection to the limit of concurrent streams: the next stream waits in the
 * client's queue.
 */
public final class ConnectionLimitCounter implements ServerInterceptor {
    private final int limit;
    private final Runnable onLimitReached;
    private final Map<SocketAddress, AtomicInteger> open = new ConcurrentHashMap<>();
    private final AtomicInteger maxOpen = new AtomicInteger();

    public ConnectionLimitCounter(int limit, Runnable onLimitReached) {
        this.limit = limit;
        this.onLimitReached = onLimitReached;
    }

    /** The most calls seen open at once on one connection. */
    public int maxOpen() {
        return maxOpen.get();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (remote == null) {
            return next.startCall(call, headers);
        }
        AtomicInteger count = open.computeIfAbsent(remote, r -> new AtomicInteger());
        int now = count.incrementAndGet();
        maxOpen.accumulateAndGet(now, Math::max);
        if (now == limit) {
            onLimitReached.run();
        }
        AtomicBoolean closed = new AtomicBoolean();
        Runnable close =
                () -> {
                    if (closed.compareAndSet(false, true) && count.decrementAndGet() == 0) {
                        open.remove(remote, count);
                    }
                };
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(call, headers);
        } catch (RuntimeException e) {
            close.run();
            throw e;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onComplete() {
                close.run();
                super.onComplete();
            }

            @Override
            public void onCancel() {
                close.run();
                super.onCancel();
            }
        };
    }
}
