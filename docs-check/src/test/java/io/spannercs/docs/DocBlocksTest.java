package io.spannercs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every code block in docs/ is marked as docs/contributing.md describes, and what it names suits
 * its mark. Fast: nothing runs here ({@link DocsCheckIT} runs the blocks).
 */
class DocBlocksTest {
    /** Names a user must replace: only in blocks marked needs-spanner. */
    static final Pattern PLACEHOLDER =
            Pattern.compile("my-project|my-instance|my-db|/path/to/|gs://|<[a-z][a-z _-]*>");

    /** {@code 'project' = 'x'} and {@code --project x}. */
    private static final Pattern NAME =
            Pattern.compile(
                    "(?:'(project|instance|database)'\\s*=\\s*'([^']*)')"
                            + "|(?:--(project|instance|database)[ =](\\S+))");

    @Test
    void everyBlockIsMarked() {
        List<String> problems = new ArrayList<>();
        List<DocBlock> blocks = DocBlock.docs();
        assertThat(blocks).as("blocks in docs/").hasSizeGreaterThan(20);
        for (DocBlock b : blocks) {
            problems.addAll(problems(b));
        }
        assertThat(problems).as("see docs/contributing.md, 'Code blocks are checked'").isEmpty();
    }

    @Test
    void theParserReadsLanguageMarksAndIndentedBlocks() throws IOException {
        java.nio.file.Path page = Files.createTempFile("page", ".md");
        try {
            Files.writeString(
                    page,
                    String.join(
                            "\n",
                            "text",
                            "```bash runnable forever expect=listening",
                            "java -jar x.jar",
                            "```",
                            "- item",
                            "",
                            "  ```json",
                            "  {\"a\": 1}",
                            "  ```",
                            "```` ```bash runnable ```` is inline code, not a fence",
                            "````",
                            "```sql runnable",
                            "````",
                            ""));
            List<DocBlock> blocks = DocBlock.parse(page);
            assertThat(blocks).hasSize(3);
            assertThat(blocks.get(0).language()).isEqualTo("bash");
            assertThat(blocks.get(0).line()).isEqualTo(2);
            assertThat(blocks.get(0).mark()).contains("runnable");
            assertThat(blocks.get(0).is("forever")).isTrue();
            assertThat(blocks.get(0).expect()).contains("listening");
            assertThat(blocks.get(0).text()).isEqualTo("java -jar x.jar\n");
            assertThat(blocks.get(1).text()).isEqualTo("{\"a\": 1}\n");
            assertThat(blocks.get(2).language()).isEmpty();
            assertThat(blocks.get(2).text()).isEqualTo("```sql runnable\n");
            assertThat(problems(blocks.get(2))).singleElement().asString().contains("language");
        } finally {
            Files.delete(page);
        }
    }

    @Test
    void readmeSetUpCommandsAreTheDocsDemoAndWhatCiRuns() throws IOException {
        List<DocBlock> readme = DocBlock.parse(DocBlock.ROOT.resolve("README.md"));
        List<DocBlock> bash = readme.stream().filter(DocBlock::isShell).toList();
        assertThat(bash).hasSize(2);
        DocBlock gettingStarted =
                DocBlock.parse(DocBlock.ROOT.resolve("docs/getting-started.md")).get(0);
        assertThat(gettingStarted.text().strip())
                .as("getting-started.md's demo is README's with --duration")
                .isEqualTo(bash.get(0).text().strip() + " --duration 30s");
        assertThat(bash.get(1).text().strip()).isEqualTo("mvn -B verify");
        assertThat(Files.readString(DocBlock.ROOT.resolve(".ci/run")))
                .as(".ci/run")
                .containsPattern("(?m)^mvn -B verify$");
    }

    /** What is wrong with a block's marks and names, if anything. */
    static List<String> problems(DocBlock b) {
        List<String> p = new ArrayList<>();
        if (b.language().isEmpty()) {
            p.add(b.where() + ": no language (```text for output, ```bash runnable, ...)");
            return p;
        }
        if (b.language().equals("java") && !b.words().isEmpty()) {
            // java runnable args=A,B: compiled and run by DocsCheckIT.
            for (String w : b.words()) {
                if (!w.equals("runnable") && !w.startsWith("args=")) {
                    p.add(b + ": a Java block takes only runnable and args=A,B,...");
                }
            }
            if (!b.is("runnable")) {
                p.add(b + ": args= is for runnable Java blocks");
            } else if (JavaBlocks.mainClass(b.text()).isEmpty()) {
                p.add(b + ": a runnable Java block is a whole file: a public class with main");
            }
            return p;
        }
        if (!b.isShell() && !b.isSql()) {
            if (!b.words().isEmpty()) {
                p.add(b + ": only shell, SQL and Java blocks take marks");
            }
            return p;
        }
        long marks = b.words().stream().filter(DocBlock.MARKS::contains).count();
        if (marks != 1) {
            p.add(b + ": needs exactly one of " + DocBlock.MARKS);
        }
        for (String w : b.words()) {
            boolean known =
                    DocBlock.MARKS.contains(w)
                            || (b.isShell()
                                    && b.is("runnable")
                                    && (w.equals("forever") || w.startsWith("expect=")));
            if (!known) {
                p.add(b + ": unknown or misplaced word '" + w + "'");
            }
        }
        if (b.expect().isPresent() && !b.is("forever")) {
            p.add(b + ": expect= is for forever blocks");
        }
        Optional<String> mark = b.mark();
        boolean placeholder = PLACEHOLDER.matcher(b.text()).find();
        if (mark.isPresent() && mark.get().equals("needs-spanner") && !placeholder) {
            p.add(b + ": names nothing to replace; runnable or needs-cluster instead?");
        }
        if (mark.isPresent() && !mark.get().equals("needs-spanner") && placeholder) {
            p.add(b + ": has a name to replace (" + PLACEHOLDER + "): mark it needs-spanner");
        }
        if (mark.isPresent()
                && (mark.get().equals("runnable") || mark.get().equals("needs-cluster"))) {
            Matcher m = NAME.matcher(b.text());
            boolean named = false;
            while (m.find()) {
                named = true;
                String key = m.group(1) != null ? m.group(1) : m.group(3);
                String value = m.group(2) != null ? m.group(2) : m.group(4);
                String served =
                        switch (key) {
                            case "project" -> "emulator-project";
                            case "instance" -> "emulator-instance";
                            default -> "emulator-db";
                        };
                if (!value.equals(served)) {
                    p.add(b + ": " + key + " '" + value + "': the demo emulator serves " + served);
                }
            }
            if (named
                    && !b.text().contains("'emulator-host' = '127.0.0.1:9010'")
                    && !b.text().contains("--emulator-host 127.0.0.1:9010")) {
                p.add(b + ": reads the demo emulator without 'emulator-host' / --emulator-host");
            }
        }
        return p;
    }
}
