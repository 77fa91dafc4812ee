package io.spannercs.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A fenced code block of a Markdown page: its info string (language, then marks such as {@code
 * runnable}) and its text. See docs/contributing.md, "Code blocks are checked".
 */
record DocBlock(String file, int line, String language, List<String> words, String text) {
    /** The repository root (tests run in the module's directory). */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    static final List<String> SHELLS = List.of("bash", "sh");

    /** Exactly one of these marks a shell or SQL block. */
    static final List<String> MARKS = List.of("runnable", "needs-cluster", "needs-spanner", "slow");

    private static final Pattern OPEN = Pattern.compile("^( *)(`{3,}|~{3,})(.*)$");

    /** {@code docs/getting-started.md:12}. */
    String where() {
        return file + ":" + line;
    }

    boolean isShell() {
        return SHELLS.contains(language);
    }

    boolean isSql() {
        return language.equals("sql");
    }

    /** A {@code java runnable} block: a whole source file the docs check compiles and runs. */
    boolean isRunnableJava() {
        return language.equals("java") && is("runnable");
    }

    boolean is(String mark) {
        return words.contains(mark);
    }

    /** The block's mark among {@link #MARKS}, or empty. */
    Optional<String> mark() {
        return words.stream().filter(MARKS::contains).findFirst();
    }

    /** {@code expect=TEXT}: what a forever block prints once it works. */
    Optional<String> expect() {
        return words.stream()
                .filter(w -> w.startsWith("expect="))
                .map(w -> w.substring("expect=".length()))
                .findFirst();
    }

    @Override
    public String toString() {
        return where() + " " + language + " " + String.join(" ", words);
    }

    /** The fenced blocks of every page in docs/, in file and line order. */
    static List<DocBlock> docs() {
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            List<DocBlock> all = new ArrayList<>();
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                all.addAll(parse(page));
            }
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fenced blocks of one page. */
    static List<DocBlock> parse(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String name = ROOT.relativize(page.toAbsolutePath().normalize()).toString();
        List<DocBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = OPEN.matcher(lines.get(i));
            // CommonMark: the info string of a backtick fence has no backtick (else it is code).
            if (!open.matches()
                    || (open.group(2).charAt(0) == '`' && open.group(3).contains("`"))) {
                continue;
            }
            int indent = open.group(1).length();
            String fence = open.group(2);
            String[] info = open.group(3).trim().split("\\s+");
            String language = info[0];
            List<String> words = Arrays.asList(info).subList(1, info.length);
            StringBuilder text = new StringBuilder();
            int start = i + 1;
            i++;
            while (i < lines.size() && !isClose(lines.get(i), fence)) {
                String l = lines.get(i);
                int strip = 0;
                while (strip < indent && strip < l.length() && l.charAt(strip) == ' ') {
                    strip++;
                }
                text.append(l.substring(strip)).append('\n');
                i++;
            }
            blocks.add(new DocBlock(name, start, language, List.copyOf(words), text.toString()));
        }
        return blocks;
    }

    private static boolean isClose(String line, String fence) {
        String t = line.trim();
        return t.length() >= fence.length()
                && t.chars().allMatch(c -> c == fence.charAt(0))
                && !t.isEmpty();
    }
}
