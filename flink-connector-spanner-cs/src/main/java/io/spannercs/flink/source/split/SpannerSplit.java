package io.spannercs.flink.source.split;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A unit of the source's work: a change stream partition ({@link PartitionSplit}) or a key range of
 * a table read at the snapshot timestamp ({@link SnapshotSplit}).
 */
@Internal
public sealed interface SpannerSplit extends SourceSplit permits PartitionSplit, SnapshotSplit {}
