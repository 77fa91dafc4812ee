package io.spannercs.flink.source.anywhere;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.reader.AnywhereProbe;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.List;
import java.util.Set;

/**
 * A lag the test imposes through the emulator's faults, so that an order violation a bug allows
 * shows whatever the threads' timing: a partition (or a table's snapshot reads) sends nothing until
 * a condition on what the job did holds. The conditions are what correct code must reach without
 * the held input (so a correct source never waits for a hold forever) and what a bug reaches first
 * (so its violation comes out every time).
 */
abstract class Hold {
    private boolean active;

    /** Emissions of the job before the hold was (re)applied. */
    protected int fromEmission;

    final void apply(Scenario scenario, Job job) {
        active = true;
        fromEmission = job.emissions().size();
        hold(scenario);
    }

    final void release(Scenario scenario) {
        if (active) {
            active = false;
            unhold(scenario);
        }
    }

    /** No longer in force, with its partitions or tables left held: a new lag holds them. */
    final void forget() {
        active = false;
    }

    boolean active() {
        return active;
    }

    abstract void hold(Scenario scenario);

    abstract void unhold(Scenario scenario);

    abstract boolean releasable(Job job);

    /**
     * The sources of a move-in lag behind its destination: their queries send nothing until the
     * destination is blocked at the move-in's barrier (or any split waits for a held source), has
     * emitted a data record after the move-in, or has finished. A destination that loses its
     * barrier (bug) emits a moved key's later change while its source still holds the key's earlier
     * one.
     */
    static final class MoveInLag extends Hold {
        private final String destination;
        private final long micros;
        private final List<String> sources;

        MoveInLag(String destination, long micros, List<String> sources) {
            this.destination = destination;
            this.micros = micros;
            this.sources = List.copyOf(sources);
        }

        @Override
        void hold(Scenario scenario) {
            sources.forEach(s -> scenario.emulator().faults().hold(s));
        }

        @Override
        void unhold(Scenario scenario) {
            sources.forEach(s -> scenario.emulator().faults().release(s));
        }

        @Override
        boolean releasable(Job job) {
            if (job.inProgress() != null) {
                // Every reader's snapshot of a checkpoint in progress is taken with the sources
                // still held: whatever the restore point, they have not caught up in it.
                return false;
            }
            // What the destination did in the readers that run now (a reader that failed took
            // back what it emitted after its checkpoint, so its new attempt's elements count).
            for (Job.Element element : job.elements()) {
                AnywhereProbe.Element e = element.e();
                if (!e.split().equals(destination) || !current(job, element)) {
                    continue;
                }
                if ((e.kind() == AnywhereProbe.Kind.DATA && e.micros() > micros)
                        || (e.kind() == AnywhereProbe.Kind.BARRIER_MARKER && e.micros() >= micros)
                        // A move-in travels with its barrier: emitted, the split waits at it.
                        || (e.kind() == AnywhereProbe.Kind.MOVE_IN_EVENT && e.micros() >= micros)
                        || e.kind() == AnywhereProbe.Kind.PARTITION_DONE_MARKER) {
                    return true;
                }
            }
            for (AnywhereProbe.SplitView v : job.liveSplits().values()) {
                if (v.blocked()
                        && ((v.token().equals(destination) && v.barrierMicros() >= micros)
                                || v.barrierSources().stream().anyMatch(sources::contains))) {
                    return true;
                }
            }
            if (job.settledFinished(destination)) {
                return true; // finished in what stays emitted: it passed the move-in
            }
            // The destination was handed to a reader already past the move-in.
            for (Job.Slot s : job.slots()) {
                if (s.current == null || !(s.running || s.finished)) {
                    continue;
                }
                for (SpannerSplit split : s.current.handed) {
                    if (split instanceof PartitionSplit p
                            && p.token().equals(destination)
                            && (p.finished()
                                    || p.position().micros() > micros
                                    || p.barrierMicros() >= micros)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** Whether the element came from a reader attempt that runs (or ran to its end) now. */
        static boolean current(Job job, Job.Element element) {
            Job.Slot s = job.slots()[element.subtask()];
            return (s.running || s.finished) && element.attempt() == s.attempt;
        }

        @Override
        public String toString() {
            return "lag of "
                    + Scenario.shortTokens(sources)
                    + " behind the move-in into "
                    + Scenario.shortToken(destination)
                    + " at "
                    + micros;
        }
    }

    /**
     * A parent of a merge (legacy) lags behind the other parents: its queries send nothing until
     * every other parent has finished, as the enumerator knows it, and no checkpoint is in
     * progress; or until the merged child emits anything (a child started before all its parents
     * finished, the bug: it emits a key's later change while the held parent still has the key's
     * earlier one).
     */
    static final class MergeLag extends Hold {
        private final String child;
        private final String held;
        private final List<String> others;

        MergeLag(String child, String held, List<String> others) {
            this.child = child;
            this.held = held;
            this.others = List.copyOf(others);
        }

        @Override
        void hold(Scenario scenario) {
            scenario.emulator().faults().hold(held);
        }

        @Override
        void unhold(Scenario scenario) {
            scenario.emulator().faults().release(held);
        }

        @Override
        boolean releasable(Job job) {
            for (Job.Element element : job.elements()) {
                if (element.e().split().equals(child) && MoveInLag.current(job, element)) {
                    return true;
                }
            }
            if (job.liveSplits().containsKey(child)) {
                return true;
            }
            if (job.inProgress() != null) {
                return false;
            }
            return others.stream().allMatch(job::settledFinished);
        }

        @Override
        public String toString() {
            return "lag of "
                    + Scenario.shortToken(held)
                    + " behind the other parents "
                    + Scenario.shortTokens(others)
                    + " of "
                    + Scenario.shortToken(child);
        }
    }

    /**
     * A table's snapshot reads lag behind the stream after a failover: they send nothing until a
     * change of a key the snapshot has was emitted (a stream read alongside an unfinished snapshot,
     * the bug: that key's snapshot row then comes after its change), or until nothing else can
     * happen (no event on its way and no unfinished partition split in any reader: correct code
     * reads the snapshot before the stream).
     */
    static final class SnapshotLag extends Hold {
        private final String table;
        private final Set<String> snapshotKeys;

        SnapshotLag(String table, Set<String> snapshotKeys) {
            this.table = table;
            this.snapshotKeys = Set.copyOf(snapshotKeys);
        }

        @Override
        void hold(Scenario scenario) {
            scenario.emulator().faults().holdReads(table);
        }

        @Override
        void unhold(Scenario scenario) {
            scenario.emulator().faults().releaseReads(table);
        }

        @Override
        boolean releasable(Job job) {
            List<SimOutput.Emission> emissions = job.emissions();
            for (int i = fromEmission; i < emissions.size(); i++) {
                ChangeEvent e = emissions.get(i).event();
                if (!e.isSnapshot() && snapshotKeys.contains(Verifier.keyOf(e))) {
                    return true;
                }
            }
            if (!job.quiet() || !job.allStarted()) {
                return false;
            }
            for (AnywhereProbe.SplitView v : job.liveSplits().values()) {
                if (v.partition() && !v.finished()) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return "lag of the snapshot reads of " + table + " behind the stream";
        }
    }
}
