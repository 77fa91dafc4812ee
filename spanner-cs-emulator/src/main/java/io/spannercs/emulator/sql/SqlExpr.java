package io.spannercs.emulator.sql;

/** An argument or literal: a query parameter, NULL, a string, a number or a TIMESTAMP literal. */
public record SqlExpr(Kind kind, String text) {
    public enum Kind {
        PARAM,
        NULL,
        STRING,
        NUMBER,
        TIMESTAMP,
        BOOL
    }
}
