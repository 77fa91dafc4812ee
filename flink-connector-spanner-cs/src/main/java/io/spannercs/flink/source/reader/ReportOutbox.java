package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.split.PartitionReport;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;

/** Reports produced while emitting, sent to the enumerator after each poll (task thread only). */
@Internal
final class ReportOutbox {
    private final List<PartitionReport> reports = new ArrayList<>();
    private boolean progressChanged;

    void add(SplitState state, PartitionReport report) {
        state.addReport(report);
        reports.add(report);
    }

    /** Re-sends a report already held in split state (after restore). */
    void resend(PartitionReport report) {
        reports.add(report);
    }

    void progressChanged() {
        progressChanged = true;
    }

    boolean hasReports() {
        return !reports.isEmpty();
    }

    boolean isEmpty() {
        return reports.isEmpty() && !progressChanged;
    }

    List<PartitionReport> take() {
        List<PartitionReport> out = new ArrayList<>(reports);
        reports.clear();
        progressChanged = false;
        return out;
    }
}
