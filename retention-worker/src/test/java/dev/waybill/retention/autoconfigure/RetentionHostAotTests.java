package dev.waybill.retention.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.InputStreamSource;
import org.springframework.javapoet.ClassName;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.retention.internal.RetentionWorker;
import dev.waybill.retention.internal.metrics.RetentionMetrics;

/**
 * The retention host under Spring's ahead-of-time processing ({@code spring-boot:process-aot},
 * then {@code -Dspring.aot.enabled=true}): the processing fixes the conditions' outcomes on the
 * build host, but the host that runs the worker is known at start-up only.
 */
class RetentionHostAotTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_host_aot");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@AfterEach
	void endProcessing() {
		System.clearProperty(AbstractAotProcessor.AOT_PROCESSING);
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRetentionAutoConfiguration.class));
	}

	@Test
	void aheadOfTimeProcessingOnABuildHostThatDoesNotPurgeStillRegistersTheWorker() {
		// Built on 'ci-7', which is not listed: before, the generated context had no worker, so no
		// host ever purged, while each logged that the worker runs there.
		runner().withPropertyValues("waybill.retention.machine-names=orders-1", "waybill.retention.machine-name=ci-7")
			.prepare((context) -> {
				System.setProperty(AbstractAotProcessor.AOT_PROCESSING, "true");
				GenericApplicationContext source = context.getSourceApplicationContext(GenericApplicationContext.class);
				InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
				DefaultGenerationContext generation = new DefaultGenerationContext(
						new ClassNameGenerator(ClassName.get("dev.waybill.retention.aot", "Processed")), files);
				new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
				generation.writeGeneratedContent();
				assertThat(sources(files)).anySatisfy((code) -> assertThat(code)
					.contains("registerBeanDefinition(\"waybillRetentionWorker\"")
					.contains("registerBeanDefinition(\"waybillRetentionMetrics\""));
			});
	}

	@Test
	void aWorkerRegisteredAheadOfTimeDoesNotStartOnAHostThatIsNotListed() {
		// What the generated context does at start-up on 'orders-3': it registers the worker
		// whatever the build host was (here through the condition's outcome during processing).
		System.setProperty(AbstractAotProcessor.AOT_PROCESSING, "true");
		runner().withPropertyValues("waybill.retention.machine-names=orders-1,orders-2",
				"waybill.retention.machine-name=orders-3").run((context) -> {
					assertThat(context).hasNotFailed().hasSingleBean(RetentionWorker.class)
						.hasSingleBean(RetentionMetrics.class);
					RetentionWorker worker = context.getBean(RetentionWorker.class);
					assertThat(worker.isRunning()).isFalse();
					assertThat(worker.isAutoStartup()).isFalse();
					context.start();
					assertThat(worker.isRunning()).isFalse();
					assertThat(Thread.getAllStackTraces().keySet()).noneMatch(
							(thread) -> thread.isAlive() && thread.getName().equals("waybill-retention"));
				});
	}

	@Test
	void aWorkerRegisteredAheadOfTimeStartsOnAListedHost() {
		System.setProperty(AbstractAotProcessor.AOT_PROCESSING, "true");
		runner().withPropertyValues("waybill.retention.machine-names=orders-1,orders-2",
				"waybill.retention.machine-name=ORDERS-2").run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(RetentionWorker.class).isRunning()).isTrue();
				});
	}

	private static List<String> sources(InMemoryGeneratedFiles files) {
		List<String> sources = new ArrayList<>();
		for (InputStreamSource file : files.getGeneratedFiles(Kind.SOURCE).values()) {
			try (InputStream in = file.getInputStream()) {
				sources.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}
		return sources;
	}

}
