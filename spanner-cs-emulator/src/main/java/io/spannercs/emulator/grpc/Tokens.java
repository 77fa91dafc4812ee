package io.spannercs.emulator.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import io.grpc.Status;
import io.spannercs.emulator.schema.SpannerTypes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Resume tokens of table reads and queries, and partition tokens. Both are opaque to clients; the
 * emulator encodes them as a serialized {@link ListValue}.
 */
final class Tokens {
    private static final String RESUME = "emu-rows-1";
    private static final String PARTITION = "emu-partition-1";

    private Tokens() {}

    /** A position in a read or query at a fixed timestamp: the rows sent so far. */
    record ResumePosition(long readMicros, int rowsSent) {}

    static ByteString resumeToken(long readMicros, int rowsSent) {
        return ListValue.newBuilder()
                .addValues(SpannerTypes.str(RESUME))
                .addValues(SpannerTypes.str(Long.toString(readMicros)))
                .addValues(SpannerTypes.str(Integer.toString(rowsSent)))
                .build()
                .toByteString();
    }

    /**
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for a token the emulator did not
     *     issue for a table read or query
     */
    static ResumePosition parseResumeToken(ByteString token) {
        try {
            ListValue l = ListValue.parseFrom(token);
            if (l.getValuesCount() == 3 && l.getValues(0).getStringValue().equals(RESUME)) {
                long micros = Long.parseLong(l.getValues(1).getStringValue());
                int sent = Integer.parseInt(l.getValues(2).getStringValue());
                if (sent >= 0) {
                    return new ResumePosition(micros, sent);
                }
            }
        } catch (InvalidProtocolBufferException | NumberFormatException e) {
            // reported below
        }
        throw Status.INVALID_ARGUMENT.withDescription("Invalid resume token").asRuntimeException();
    }

    /**
     * A partition of a table's key space: keys above {@code lowerExclusive} (null for the start of
     * the table) up to and including {@code upperInclusive} (null for the end), within the
     * read-only transaction that created it, for the request whose defining fields hash to {@code
     * fingerprint}.
     *
     * @param kind {@code read} or {@code query}
     */
    record PartitionSpec(
            String kind,
            ByteString transactionId,
            String fingerprint,
            List<Value> lowerExclusive,
            List<Value> upperInclusive) {}

    static ByteString partitionToken(PartitionSpec p) {
        return ListValue.newBuilder()
                .addValues(SpannerTypes.str(PARTITION))
                .addValues(SpannerTypes.str(p.kind()))
                .addValues(
                        SpannerTypes.str(HexFormat.of().formatHex(p.transactionId().toByteArray())))
                .addValues(SpannerTypes.str(p.fingerprint()))
                .addValues(key(p.lowerExclusive()))
                .addValues(key(p.upperInclusive()))
                .build()
                .toByteString();
    }

    /**
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for a token the emulator did not
     *     issue
     */
    static PartitionSpec parsePartitionToken(ByteString token) {
        try {
            ListValue l = ListValue.parseFrom(token);
            if (l.getValuesCount() == 6 && l.getValues(0).getStringValue().equals(PARTITION)) {
                return new PartitionSpec(
                        l.getValues(1).getStringValue(),
                        ByteString.copyFrom(
                                HexFormat.of().parseHex(l.getValues(2).getStringValue())),
                        l.getValues(3).getStringValue(),
                        key(l.getValues(4)),
                        key(l.getValues(5)));
            }
        } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
            // reported below
        }
        throw Status.INVALID_ARGUMENT
                .withDescription("Invalid partition token")
                .asRuntimeException();
    }

    private static Value key(List<Value> key) {
        if (key == null) {
            return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
        }
        return Value.newBuilder().setListValue(ListValue.newBuilder().addAllValues(key)).build();
    }

    private static List<Value> key(Value v) {
        return v.hasListValue() ? new ArrayList<>(v.getListValue().getValuesList()) : null;
    }

    /** A short hash of the parts, to check a partition token against its request. */
    static String fingerprint(ByteString... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (ByteString p : parts) {
                md.update(Integer.toString(p.size()).getBytes(StandardCharsets.UTF_8));
                md.update((byte) ':');
                md.update(p.toByteArray());
            }
            return HexFormat.of().formatHex(md.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
