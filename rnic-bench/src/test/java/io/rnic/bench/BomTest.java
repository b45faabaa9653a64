package io.rnic.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * rnic-bom has no parent (so that importing it imports no third-party versions), so nothing in
 * Maven keeps it in step with the modules: this test does. It reads the POMs beside rnic-bench.
 */
class BomTest {
    private static Path root() {
        String dir = System.getProperty("rnic.root.dir");
        assertNotNull(dir, "surefire sets rnic.root.dir to the project's root directory");
        return Path.of(dir);
    }

    private static Element pom(String relative) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        Document d = f.newDocumentBuilder().parse(root().resolve(relative).toFile());
        return d.getDocumentElement();
    }

    private static Element child(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("<" + e.getTagName() + "> has no <" + name + ">");
    }

    private static List<String> texts(Element parent, String name) {
        List<String> out = new ArrayList<>();
        NodeList l = parent.getElementsByTagName(name);
        for (int i = 0; i < l.getLength(); i++) {
            out.add(l.item(i).getTextContent().strip());
        }
        return out;
    }

    @Test
    void theBomHasTheProjectVersionAndManagesEveryOtherModule() throws Exception {
        Element parent = pom("pom.xml");
        Element bom = pom("rnic-bom/pom.xml");
        String version = child(parent, "version").getTextContent().strip();
        assertEquals(System.getProperty("rnic.expected.version"), version);
        assertEquals(version, child(bom, "version").getTextContent().strip(), "rnic-bom's version");
        assertEquals(child(parent, "groupId").getTextContent().strip(), child(bom, "groupId").getTextContent().strip());

        List<String> modules = texts(child(parent, "modules"), "module");
        assertTrue(modules.remove("rnic-bom"), "rnic-bom is built with the others: " + modules);
        Element managed = child(child(bom, "dependencyManagement"), "dependencies");
        assertEquals(modules, texts(managed, "artifactId"), "the modules rnic-bom manages");
        for (String v : texts(managed, "version")) {
            assertEquals("${project.version}", v);
        }
    }

    @Test
    void theBomImportsNoOtherVersions() throws Exception {
        Element bom = pom("rnic-bom/pom.xml");
        assertEquals(0, bom.getElementsByTagName("parent").getLength(), "a parent's dependencyManagement would leak");
        assertEquals(1, bom.getElementsByTagName("dependencies").getLength(), "only dependencyManagement's");
        for (String g : texts(bom, "groupId")) {
            assertTrue(g.equals("io.rnic") || g.equals("org.apache.maven.plugins"), g);
        }
    }
}
