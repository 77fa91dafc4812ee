package io.spannercs.docs;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * {@code java runnable args=A,B,...} blocks: a whole source file (package, imports, a public class
 * with {@code main}) that the docs check compiles with the JDK's compiler against its own test
 * class path (the connector and Flink, as a user's project with the dependencies getting-started.md
 * lists has them) and runs in a JVM of its own with the arguments {@code args=} gives, split at
 * commas.
 */
final class JavaBlocks {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
    private static final Pattern CLASS =
            Pattern.compile("(?m)^public\\s+(?:final\\s+)?class\\s+(\\w+)");

    private JavaBlocks() {}

    /** The arguments of a runnable Java block ({@code args=A,B}), or none. */
    static List<String> args(DocBlock b) {
        return b.words().stream()
                .filter(w -> w.startsWith("args="))
                .findFirst()
                .map(w -> Arrays.asList(w.substring("args=".length()).split(",")))
                .orElse(List.of());
    }

    /** {@code com.example.OrderChanges}, or empty when the block is not a whole source file. */
    static Optional<String> mainClass(String source) {
        Matcher cls = CLASS.matcher(source);
        if (!cls.find() || !source.contains("public static void main(String[] args)")) {
            return Optional.empty();
        }
        Matcher pkg = PACKAGE.matcher(source);
        return Optional.of((pkg.find() ? pkg.group(1) + "." : "") + cls.group(1));
    }

    /** The class path the docs check runs with (Surefire and Failsafe put it here). */
    static String classPath() {
        return System.getProperty(
                "surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /**
     * Compiles the block's source into {@code classes}; an {@link AssertionError} with the
     * compiler's messages when it does not compile.
     */
    static void compile(DocBlock b, String source, Path classes) throws IOException {
        String cls = mainClass(source).orElseThrow();
        Path file = classes.resolveSibling("src").resolve(cls.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.createDirectories(classes);
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new AssertionError("the docs check needs a JDK (javax.tools), not a JRE");
        }
        StringWriter messages = new StringWriter();
        List<String> options =
                List.of(
                        "-classpath",
                        classPath(),
                        "-d",
                        classes.toString(),
                        "--release",
                        "17",
                        "-Xlint:none",
                        "-proc:none");
        boolean ok =
                javac.getTask(
                                messages,
                                null,
                                null,
                                options,
                                null,
                                javac.getStandardFileManager(null, null, null)
                                        .getJavaFileObjects(file.toFile()))
                        .call();
        if (!ok) {
            throw new AssertionError(b + " does not compile:\n" + messages);
        }
    }

    /**
     * {@code java @ARGFILE MAIN ARGS}: the class path ({@code classes} first) goes into an argument
     * file next to {@code classes}, so the command the check prints stays short.
     */
    static ProcessBuilder command(String mainClass, Path classes, List<String> args)
            throws IOException {
        Path argFile = classes.resolveSibling("java.args");
        String cp = classes + File.pathSeparator + classPath();
        Files.writeString(argFile, "-cp \"" + cp.replace("\\", "\\\\") + "\"\n");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("@" + argFile);
        command.add(mainClass);
        command.addAll(args);
        return new ProcessBuilder(command).redirectErrorStream(true);
    }
}
