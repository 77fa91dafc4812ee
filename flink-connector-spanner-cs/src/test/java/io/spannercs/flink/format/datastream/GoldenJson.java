package io.spannercs.flink.format.datastream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Compares JSON with an expected file field by field, numbers with their exact digits. In the
 * expected file, a string {@code "<name>"} stands for a value that varies between runs (a commit
 * timestamp, the time of reading); the rule of that name checks the actual value instead, so no
 * field goes unchecked. A marker without a rule fails.
 */
public final class GoldenJson {
    private GoldenJson() {}

    public static JsonNode resource(String name) {
        try (InputStream in = GoldenJson.class.getResourceAsStream(name)) {
            assertThat(in).as("test resource %s", name).isNotNull();
            return JsonValues.parse(in.readAllBytes());
        } catch (IOException e) {
            throw new AssertionError("Unreadable test resource " + name, e);
        }
    }

    public static JsonNode parse(String json) {
        try {
            return JsonValues.parse(json);
        } catch (IOException e) {
            throw new AssertionError("Not JSON: " + json, e);
        }
    }

    /**
     * @param rules marker name to a check of the actual value at the marker (path, value)
     */
    public static void assertMatches(
            JsonNode actual, JsonNode expected, Map<String, BiConsumer<String, JsonNode>> rules) {
        List<String> problems = new ArrayList<>();
        compare("$", actual, expected, rules, problems);
        if (!problems.isEmpty()) {
            fail(
                    String.join("\n", problems)
                            + "\nactual:\n"
                            + actual.toPrettyString()
                            + "\nexpected:\n"
                            + expected.toPrettyString());
        }
    }

    private static void compare(
            String path,
            JsonNode actual,
            JsonNode expected,
            Map<String, BiConsumer<String, JsonNode>> rules,
            List<String> problems) {
        if (expected.isTextual()
                && expected.textValue().startsWith("<")
                && expected.textValue().endsWith(">")) {
            String rule = expected.textValue().substring(1, expected.textValue().length() - 1);
            if (!rules.containsKey(rule)) {
                problems.add(path + ": no rule for marker " + expected);
                return;
            }
            try {
                rules.get(rule).accept(path, actual);
            } catch (AssertionError e) {
                problems.add(path + ": rule " + rule + " failed: " + e.getMessage());
            }
            return;
        }
        if (expected.isObject() && actual.isObject()) {
            TreeSet<String> names = new TreeSet<>();
            expected.fieldNames().forEachRemaining(names::add);
            actual.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                if (!actual.has(name)) {
                    problems.add(path + "." + name + ": missing");
                } else if (!expected.has(name)) {
                    problems.add(path + "." + name + ": not expected, is " + actual.get(name));
                } else {
                    compare(
                            path + "." + name,
                            actual.get(name),
                            expected.get(name),
                            rules,
                            problems);
                }
            }
            return;
        }
        if (expected.isArray() && actual.isArray()) {
            if (expected.size() != actual.size()) {
                problems.add(
                        path + ": " + actual.size() + " elements, expected " + expected.size());
                return;
            }
            Iterator<JsonNode> a = actual.elements();
            Iterator<JsonNode> e = expected.elements();
            for (int i = 0; a.hasNext(); i++) {
                compare(path + "[" + i + "]", a.next(), e.next(), rules, problems);
            }
            return;
        }
        // Same node class and, for numbers, the same digits: "1" is not 1, and 2.50 is not 2.5
        // (Jackson's DecimalNode.equals ignores the scale).
        boolean same =
                expected.getClass() == actual.getClass()
                        && (expected.isNumber()
                                ? expected.asText().equals(actual.asText())
                                : expected.equals(actual));
        if (!same) {
            problems.add(path + ": " + actual + ", expected " + expected);
        }
    }
}
