package io.spannercs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * The pom fragments of docs/getting-started.md ("A DataStream job") agree with this repository's
 * poms: the connector's coordinates and version, Flink's version and {@code provided} scope, and
 * the packages the shade plugin relocates (the SQL jar's). {@link DocsCheckIT} compiles and runs
 * the page's job.
 */
class GettingStartedPomTest {
    private static final Path ROOT = DocBlock.ROOT;

    private static List<Element> fragments;
    private static Element parent;

    @BeforeAll
    static void parse() throws Exception {
        fragments = new ArrayList<>();
        for (DocBlock b : DocBlock.parse(ROOT.resolve("docs/getting-started.md"))) {
            if (b.language().equals("xml")) {
                // A fragment may have several top-level elements: wrap it.
                fragments.add(xml("<fragment>" + b.text() + "</fragment>").getDocumentElement());
            }
        }
        parent = pom("pom.xml");
    }

    @Test
    void theDependencyIsTheConnectorOfThisBuild() throws Exception {
        List<Element> ours = dependencies("io.spannercs");
        assertThat(ours).as("io.spannercs dependencies in getting-started.md").hasSize(1);
        Element connector = ours.get(0);
        assertThat(text(connector, "artifactId"))
                .isEqualTo(text(pom("flink-connector-spanner-cs/pom.xml"), "artifactId"));
        assertThat(text(connector, "version")).isEqualTo(text(parent, "version"));
        assertThat(text(connector, "scope")).as("compile scope: it goes into the jar").isEmpty();
    }

    @Test
    void flinkIsProvidedAtTheVersionThisBuildUses() {
        String flinkVersion = text(parent, "flink.version");
        List<Element> properties = elements("flink.version");
        assertThat(properties).hasSize(1);
        assertThat(properties.get(0).getTextContent().strip()).isEqualTo(flinkVersion);
        List<Element> flink = dependencies("org.apache.flink");
        assertThat(flink).isNotEmpty();
        Set<String> artifacts = new HashSet<>();
        for (Element d : flink) {
            artifacts.add(text(d, "artifactId"));
            assertThat(text(d, "version")).isEqualTo("${flink.version}");
            assertThat(text(d, "scope")).as(text(d, "artifactId")).isEqualTo("provided");
        }
        // What the page's job imports from Flink: DataStream API, FileSink, the local cluster.
        assertThat(artifacts)
                .contains("flink-streaming-java", "flink-connector-files", "flink-clients");
    }

    @Test
    void theShadePluginRelocatesWhatTheSqlJarRelocates() throws Exception {
        Element sqlJar = pom("flink-sql-connector-spanner-cs/pom.xml");
        assertThat(relocatedPackages(fragments.toArray(Element[]::new)))
                .isNotEmpty()
                .isEqualTo(relocatedPackages(sqlJar));
        List<Element> plugins = elements("plugin");
        assertThat(plugins).hasSize(1);
        assertThat(text(plugins.get(0), "artifactId")).isEqualTo("maven-shade-plugin");
        Element managed =
                children(parent, "plugin").stream()
                        .filter(p -> text(p, "artifactId").equals("maven-shade-plugin"))
                        .findFirst()
                        .orElseThrow();
        assertThat(text(plugins.get(0), "version")).isEqualTo(text(managed, "version"));
        assertThat(elements("transformer"))
                .extracting(t -> t.getAttribute("implementation"))
                .contains("org.apache.maven.plugins.shade.resource.ServicesResourceTransformer");
        for (Element r : elements("relocation")) {
            assertThat(text(r, "shadedPattern"))
                    .as("relocated into a package of the user's own")
                    .isEqualTo("com.example.shaded." + text(r, "pattern"));
        }
    }

    private static Set<String> relocatedPackages(Element... roots) {
        Set<String> patterns = new HashSet<>();
        for (Element root : roots) {
            for (Element r : children(root, "relocation")) {
                patterns.add(text(r, "pattern"));
            }
        }
        return patterns;
    }

    private static List<Element> dependencies(String groupId) {
        return elements("dependency").stream()
                .filter(d -> text(d, "groupId").equals(groupId))
                .toList();
    }

    private static List<Element> elements(String name) {
        List<Element> all = new ArrayList<>();
        for (Element f : fragments) {
            all.addAll(children(f, name));
        }
        return all;
    }

    /** Every element of that name under {@code root}, at any depth. */
    private static List<Element> children(Element root, String name) {
        NodeList nodes = root.getElementsByTagName(name);
        List<Element> list = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            list.add((Element) nodes.item(i));
        }
        return list;
    }

    /** The text of the first {@code name} under {@code e} (its own, not a parent's), or "". */
    private static String text(Element e, String name) {
        NodeList nodes = e.getElementsByTagName(name);
        for (int i = 0; i < nodes.getLength(); i++) {
            // A pom's own artifactId/version, not its <parent>'s.
            if (nodes.item(i).getParentNode().getNodeName().equals("parent")) {
                continue;
            }
            return nodes.item(i).getTextContent().strip();
        }
        return "";
    }

    private static Element pom(String path) throws Exception {
        return xml(java.nio.file.Files.readString(ROOT.resolve(path))).getDocumentElement();
    }

    private static Document xml(String text) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new InputSource(new StringReader(text)));
    }
}
