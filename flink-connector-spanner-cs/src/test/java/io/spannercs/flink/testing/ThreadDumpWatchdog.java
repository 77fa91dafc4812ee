package io.spannercs.flink.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;

/**
 * Prints every thread's stack to standard output (kept in the test's surefire output) if a test is
 * still running after {@code after}: a test that hangs on a loaded machine and then times out
 * otherwise leaves only the timeout behind. Closing it before then prints nothing.
 */
public final class ThreadDumpWatchdog implements AutoCloseable {
    private final Thread thread;

    public ThreadDumpWatchdog(String test, Duration after) {
        thread =
                new Thread(
                        () -> {
                            try {
                                Thread.sleep(after.toMillis());
                            } catch (InterruptedException e) {
                                return;
                            }
                            System.out.println(dump(test + " still running after " + after));
                        },
                        "thread-dump-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    private static String dump(String headline) {
        StringBuilder out = new StringBuilder("==== ").append(headline).append(" ====\n");
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            out.append('"')
                    .append(info.getThreadName())
                    .append("\" ")
                    .append(info.getThreadState());
            if (info.getLockName() != null) {
                out.append(" on ").append(info.getLockName());
            }
            out.append('\n');
            for (StackTraceElement frame : info.getStackTrace()) {
                out.append("    at ").append(frame).append('\n');
            }
        }
        return out.append("==== end of thread dump ====").toString();
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
