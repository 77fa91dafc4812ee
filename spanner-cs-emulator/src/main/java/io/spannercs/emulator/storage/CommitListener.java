package io.spannercs.emulator.storage;

/** Told about every commit, under the database's commit lock, in commit order. */
public interface CommitListener {
    void onCommit(CommittedTransaction transaction);
}
