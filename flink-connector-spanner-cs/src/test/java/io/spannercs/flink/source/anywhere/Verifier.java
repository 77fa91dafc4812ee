package io.spannercs.flink.source.anywhere;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a restore must keep, checked on the committed output (what an exactly-once sink would hold:
 * each reader's output up to the checkpoint it was restored from, then what it emitted after):
 *
 * <ul>
 *   <li>every change of the emulator's ground truth (and every snapshot row) exactly once;
 *   <li>per key, changes in commit timestamp order along each lane (the emission order of the whole
 *       source, or of one reader where only one was restarted); a snapshot row is the key's state
 *       at the snapshot timestamp and comes before its later changes;
 *   <li>no late record: every record's timestamp (ms) above the downstream watermark of its
 *       reader's output when it was emitted (checked on everything emitted, committed or not).
 * </ul>
 */
final class Verifier {
    private static final int MAX_LISTED = 5;

    private Verifier() {}

    static String keyOf(ChangeEvent e) {
        return e.getTable() + "|" + e.getKeys();
    }

    static String identity(ChangeEvent e) {
        return e.isSnapshot() ? Scenario.snapshotIdentity(e) : GroundTruth.identity(e);
    }

    private static long micros(ChangeEvent e, Scenario scenario) {
        return e.isSnapshot()
                ? scenario.snapshotMicros()
                : EmulatorSources.micros(e.getCommitTimestamp());
    }

    /**
     * @param lanes the committed output, in emission order along each lane
     * @param emitted everything the readers emitted (for lateness)
     * @return what is wrong, or an empty list
     */
    static List<String> check(
            Scenario scenario,
            List<List<SimOutput.Emission>> lanes,
            List<SimOutput.Emission> emitted,
            List<Job.FinishedReport> ends) {
        List<String> problems = new ArrayList<>();
        exactlyOnce(scenario, lanes, problems);
        perKeyOrder(scenario, lanes, problems);
        noLateRecords(emitted, problems);
        partitionEnds(scenario, ends, problems);
        return problems;
    }

    /**
     * Every partition end a reader reports is the partition's own (its last record's timestamp), or
     * the source's end for a partition that lives on past it. A partition reported finished at the
     * source's end although it ended before was read again past its end and ended only with the
     * bounded source (an unbounded source would query it again forever).
     */
    private static void partitionEnds(
            Scenario scenario, List<Job.FinishedReport> ends, List<String> problems) {
        List<String> wrong = new ArrayList<>();
        for (Job.FinishedReport f : ends) {
            long own = scenario.partitionEndMicros(f.token());
            long expected = Math.min(own, scenario.endMicros());
            if (f.endMicros() != expected) {
                wrong.add(
                        "partition "
                                + Scenario.shortToken(f.token())
                                + " was reported finished at "
                                + f.endMicros()
                                + (f.endMicros() == scenario.endMicros()
                                        ? " (the source's end)"
                                        : "")
                                + " by subtask "
                                + f.subtask()
                                + " attempt "
                                + f.attempt()
                                + ", but it ended at "
                                + own);
            }
        }
        if (!wrong.isEmpty()) {
            problems.add(
                    "partition ends: "
                            + wrong.size()
                            + " reports of a partition's end are not its end, e.g. "
                            + first(wrong));
        }
    }

    private static void exactlyOnce(
            Scenario scenario, List<List<SimOutput.Emission>> lanes, List<String> problems) {
        Map<String, Integer> expected = new LinkedHashMap<>();
        scenario.expected().forEach(id -> expected.merge(id, 1, Integer::sum));
        Map<String, List<SimOutput.Emission>> got = new LinkedHashMap<>();
        for (List<SimOutput.Emission> lane : lanes) {
            for (SimOutput.Emission e : lane) {
                got.computeIfAbsent(identity(e.event()), id -> new ArrayList<>()).add(e);
            }
        }
        List<String> missing = new ArrayList<>();
        List<String> duplicated = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        expected.forEach(
                (id, n) -> {
                    List<SimOutput.Emission> g = got.getOrDefault(id, List.of());
                    if (g.isEmpty()) {
                        missing.add(id);
                    } else if (g.size() > n) {
                        duplicated.add(id + " " + g.size() + " times (" + where(g) + ")");
                    }
                });
        got.forEach(
                (id, g) -> {
                    if (!expected.containsKey(id)) {
                        unexpected.add(id + " (" + where(g) + ")");
                    }
                });
        if (!missing.isEmpty()) {
            problems.add(
                    "exactly once: "
                            + missing.size()
                            + " of "
                            + expected.size()
                            + " changes missing, e.g. "
                            + first(missing));
        }
        if (!duplicated.isEmpty()) {
            problems.add(
                    "exactly once: "
                            + duplicated.size()
                            + " changes emitted more than once, e.g. "
                            + first(duplicated));
        }
        if (!unexpected.isEmpty()) {
            problems.add(
                    "exactly once: "
                            + unexpected.size()
                            + " changes not in the ground truth, e.g. "
                            + first(unexpected));
        }
    }

    private static void perKeyOrder(
            Scenario scenario, List<List<SimOutput.Emission>> lanes, List<String> problems) {
        List<String> violations = new ArrayList<>();
        for (List<SimOutput.Emission> lane : lanes) {
            Map<String, SimOutput.Emission> last = new HashMap<>();
            for (SimOutput.Emission e : lane) {
                String key = keyOf(e.event());
                SimOutput.Emission before = last.get(key);
                long t = micros(e.event(), scenario);
                if (before != null && t <= micros(before.event(), scenario)) {
                    violations.add(
                            "key "
                                    + key
                                    + ": "
                                    + describe(e, scenario)
                                    + " emitted after "
                                    + describe(before, scenario));
                }
                if (before == null || t > micros(before.event(), scenario)) {
                    last.put(key, e);
                }
            }
        }
        if (!violations.isEmpty()) {
            problems.add(
                    "per-key order: "
                            + violations.size()
                            + " changes after a later change of their key, e.g. "
                            + first(violations));
        }
    }

    private static void noLateRecords(List<SimOutput.Emission> emitted, List<String> problems) {
        List<String> late = new ArrayList<>();
        for (SimOutput.Emission e : emitted) {
            if (e.timestampMillis() <= e.watermarkBefore()) {
                late.add(
                        identity(e.event())
                                + " at "
                                + e.timestampMillis()
                                + " ms after watermark "
                                + e.watermarkBefore()
                                + " (subtask "
                                + e.subtask()
                                + " attempt "
                                + e.attempt()
                                + ", split "
                                + Scenario.shortToken(e.split())
                                + ")");
            }
        }
        if (!late.isEmpty()) {
            problems.add("late records: " + late.size() + ", e.g. " + first(late));
        }
    }

    private static String describe(SimOutput.Emission e, Scenario scenario) {
        return (e.event().isSnapshot() ? "snapshot row" : "change")
                + " at "
                + micros(e.event(), scenario)
                + (e.event().isSnapshot()
                        ? ""
                        : " (txn " + e.event().getServerTransactionId() + ")")
                + " [#"
                + e.seq()
                + ", subtask "
                + e.subtask()
                + " attempt "
                + e.attempt()
                + ", split "
                + Scenario.shortToken(e.split())
                + "]";
    }

    private static String where(List<SimOutput.Emission> g) {
        List<String> out = new ArrayList<>();
        for (SimOutput.Emission e : g) {
            out.add("#" + e.seq() + " subtask " + e.subtask() + " attempt " + e.attempt());
        }
        return String.join(", ", out);
    }

    private static String first(List<String> items) {
        return String.join("; ", items.subList(0, Math.min(MAX_LISTED, items.size())))
                + (items.size() > MAX_LISTED ? "; ..." : "");
    }
}
