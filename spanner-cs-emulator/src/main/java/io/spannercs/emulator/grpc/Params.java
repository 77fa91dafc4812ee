package io.spannercs.emulator.grpc;

import com.google.protobuf.Value;
import com.google.spanner.v1.ExecuteSqlRequest;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.grpc.Status;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.sql.SqlExpr;

/** Binds SQL expressions to values from the request's parameters. */
final class Params {
    private Params() {}

    static Value bind(SqlExpr expr, ExecuteSqlRequest request) {
        switch (expr.kind()) {
            case PARAM:
                {
                    Value v = request.getParams().getFieldsMap().get(expr.text());
                    if (v == null) {
                        throw Status.INVALID_ARGUMENT
                                .withDescription("No parameter found for binding: " + expr.text())
                                .asRuntimeException();
                    }
                    return v;
                }
            case NULL:
                return SpannerTypes.NULL;
            case BOOL:
                return Value.newBuilder().setBoolValue(Boolean.parseBoolean(expr.text())).build();
            default:
                return SpannerTypes.str(expr.text());
        }
    }

    static Type typeOf(SqlExpr expr, ExecuteSqlRequest request) {
        switch (expr.kind()) {
            case PARAM:
                {
                    Type t = request.getParamTypesMap().get(expr.text());
                    return t == null ? SpannerTypes.of(TypeCode.STRING) : t;
                }
            case NUMBER:
                return SpannerTypes.of(
                        expr.text().contains(".") ? TypeCode.FLOAT64 : TypeCode.INT64);
            case BOOL:
                return SpannerTypes.of(TypeCode.BOOL);
            case TIMESTAMP:
                return SpannerTypes.of(TypeCode.TIMESTAMP);
            default:
                return SpannerTypes.of(TypeCode.STRING);
        }
    }
}
