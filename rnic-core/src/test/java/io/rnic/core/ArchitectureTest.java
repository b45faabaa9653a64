package io.rnic.core;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.Counters;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RdQpErrorRecovery;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.RnicException;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WireException;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WorkRequest;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * The core's architecture, checked on its bytecode (docs/design.md, "Modules and packages"):
 *
 * <ol>
 *   <li>the engine ({@code io.rnic.core..}) uses the API package {@code io.rnic.verbs} only
 *       through its value classes (work requests, completions, attributes, enums, counters), never
 *       the objects that wrap the engine (devices, QPs, regions...), and those value classes use
 *       no object either: so no cycle runs from the engine through an application's objects back
 *       into the engine;</li>
 *   <li>the engine's packages form no cycle;</li>
 *   <li>the core has no sockets and no Netty pipeline: it sees the network only through the
 *       {@code Wire} seam.</li>
 * </ol>
 *
 * <p>Each rule is also shown to fail on a scratch class that breaks it (test sources only).
 */
class ArchitectureTest {
    /** The API's value classes: what the engine reads from and writes to applications. */
    static final DescribedPredicate<JavaClass> API_VALUES = belongToAnyOf(SendWorkRequest.class,
            RecvWorkRequest.class, WorkRequest.class, WorkCompletion.class, WrOpcode.class,
            WcStatus.class, WcOpcode.class, QpCaps.class, AddressHandle.class, AccessFlags.class, QpType.class,
            QpState.class, PathMtu.class, QpAttributes.class, QpAttrMask.class, AddressVector.class, AsyncEvent.class,
            Counter.class, Counters.class, IcrcPolicy.class, RnicException.class, WireException.class,
            LossRecovery.class, RdQpErrorRecovery.class)
            .or(com.tngtech.archunit.core.domain.properties.HasName.Predicates.name("io.rnic.verbs.Sges")).as("the API's value classes");

    /** An API class that is not a value class, or an array of one. */
    private static final DescribedPredicate<JavaClass> API_OBJECTS = DescribedPredicate.describe(
            "the API's object classes (devices, QPs, regions, ...)", c -> {
                JavaClass base = c.getBaseComponentType();
                return base.getPackageName().equals("io.rnic.verbs") && !API_VALUES.test(base);
            });

    static final ArchRule ENGINE_USES_ONLY_VALUES = noClasses().that().resideInAPackage("io.rnic.core..")
            .should().dependOnClassesThat(API_OBJECTS)
            .because("the engine sits below the objects applications hold, and a dependency on one closes a cycle");

    static final ArchRule VALUES_USE_NO_OBJECTS = noClasses().that(API_VALUES).should().dependOnClassesThat(API_OBJECTS)
            .because("the engine reads the value classes, so an object they name would be reachable from the engine");

    static final ArchRule ENGINE_PACKAGES_ACYCLIC = slices().matching("io.rnic.core.(*)..").should().beFreeOfCycles();

    /**
     * The one socket the core's module holds is not the network's: {@code Connections.serve} and
     * {@code dial} exchange two QPs' numbers, PSNs and keys over TCP out of band, as
     * {@code ibv_rc_pingpong} does, before any RoCE packet flows.
     */
    static final ArchRule NO_SOCKETS_IN_THE_CORE = noClasses().that().resideInAnyPackage("io.rnic..")
            .and().doNotHaveFullyQualifiedName("io.rnic.verbs.Connections")
            .should().dependOnClassesThat().resideInAnyPackage("io.netty.channel..", "io.netty.bootstrap..",
                    "java.nio.channels..")
            .orShould().dependOnClassesThat().belongToAnyOf(java.net.Socket.class, java.net.ServerSocket.class,
                    java.net.DatagramSocket.class)
            .because("the core is the protocol; sockets and event loops belong to the wires (rnic-transport)");

    /**
     * The layers inside the core: the HCA's receive path and the memory model know nothing of the
     * QP engine (requester, responder...), which sits on top of them.
     */
    static final ArchRule HCA_AND_MEMORY_KNOW_NO_ENGINE = noClasses()
            .that().resideInAnyPackage("io.rnic.core.hca..", "io.rnic.core.memory..")
            .should().dependOnClassesThat().resideInAPackage("io.rnic.core.engine..");

    /** The core's module depends on no other rnic module: the wires and tools depend on it. */
    static final ArchRule CORE_DEPENDS_ON_NO_OTHER_MODULE = noClasses().that().resideInAnyPackage("io.rnic.core..",
            "io.rnic.verbs").should().dependOnClassesThat().resideInAnyPackage("io.rnic.transport..",
            "io.rnic.verbs.cm..", "io.rnic.verbs.channel..", "io.rnic.verbs.testing..", "io.rnic.bench..");

    private static JavaClasses main;
    private static JavaClasses scratch;

    private static synchronized JavaClasses mainClasses() {
        if (main == null) {
            main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("io.rnic");
        }
        return main;
    }

    private static synchronized JavaClasses withScratch() {
        if (scratch == null) {
            scratch = new ClassFileImporter().importPackages("io.rnic.core", "io.rnic.verbs");
        }
        return scratch;
    }

    @Test
    void theHcaAndTheMemoryModelKnowNoEngine() {
        HCA_AND_MEMORY_KNOW_NO_ENGINE.check(mainClasses());
    }

    @Test
    void theCoreDependsOnNoOtherModule() {
        CORE_DEPENDS_ON_NO_OTHER_MODULE.check(mainClasses());
    }

    @Test
    void theEngineUsesTheApiOnlyThroughItsValueClasses() {
        ENGINE_USES_ONLY_VALUES.check(mainClasses());
        VALUES_USE_NO_OBJECTS.check(mainClasses());
    }

    @Test
    void theEnginePackagesFormNoCycle() {
        ENGINE_PACKAGES_ACYCLIC.check(mainClasses());
    }

    @Test
    void theCoreHasNoSocketsAndNoPipeline() {
        NO_SOCKETS_IN_THE_CORE.check(mainClasses());
    }

    @Test
    void anEngineClassReachingAnObjectBreaksTheRule() {
        EvaluationResult r = ENGINE_USES_ONLY_VALUES.evaluate(withScratch());
        assertTrue(r.hasViolation(), "the scratch class must be reported");
        String report = String.join("\n", r.getFailureReport().getDetails());
        assertTrue(report.contains("EngineReachingAnObject"), report);
        assertTrue(report.contains("io.rnic.verbs.RdmaDevice"), report);
    }

    @Test
    void aCycleAmongTheEnginePackagesBreaksTheRule() {
        EvaluationResult r = ENGINE_PACKAGES_ACYCLIC.evaluate(withScratch());
        assertTrue(r.hasViolation(), "the scratch cycle must be reported");
        String report = String.join("\n", r.getFailureReport().getDetails());
        assertTrue(report.contains("ScratchCycleBack") && report.contains("CycleThroughPsn"), report);
        assertFalse(ENGINE_PACKAGES_ACYCLIC.evaluate(mainClasses()).hasViolation());
    }
}
