package dev.waybill.outbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Waybill's threads come from a {@link WaybillThreads} bean, named by role; the relay stops before
 * the listener that wakes it.
 */
class WaybillThreadsAutoConfigurationTests {

	private TestSchema schema;

	private ApplicationContextRunner runner;

	@BeforeEach
	void createSchema() {
		this.schema = TestSchema.create("threadsconfig");
		this.runner = WaybillContext.runner(this.schema.name()).withBean(Transport.class, FakeTransport::new);
	}

	@AfterEach
	void dropSchema() {
		this.schema.close();
	}

	@Test
	void theRelayListenerAndNotifierRunOnNamedDaemonThreadsThatEndWithTheContext() {
		Set<Thread> before = Thread.getAllStackTraces().keySet();
		List<Thread> started = new CopyOnWriteArrayList<>();
		this.runner.withPropertyValues("waybill.outbox.relay.workers=2").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(WaybillThreads.class);
			assertThat(context.getBean(WaybillThreads.class).isVirtual()).isFalse();
			Thread.getAllStackTraces().keySet().stream().filter((thread) -> !before.contains(thread))
				.filter((thread) -> thread.getName().startsWith("waybill-")).forEach(started::add);
			assertThat(started).extracting(Thread::getName).contains("waybill-relay-0", "waybill-relay-1",
					"waybill-relay-settler", "waybill-relay-leases", "waybill-outbox-listener",
					"waybill-notify-" + context.getBean(OutboxTables.class).notifyChannel());
			assertThat(started).allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
		});
		Awaitility.await().until(() -> started.stream().noneMatch(Thread::isAlive));
	}

	@Test
	void virtualThreadsRequestedOnJava17AreHarmless() {
		this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(WaybillThreads.class);
			boolean java21 = Runtime.version().feature() >= 21;
			assertThat(context.getBean(WaybillThreads.class).isVirtual()).isEqualTo(java21);
			assertThat(context.getBean(Relay.class).isRunning()).isTrue();
		});
	}

	@Test
	void aWaybillThreadsBeanOfTheApplicationReplacesWaybillsOwn() {
		List<String> created = new CopyOnWriteArrayList<>();
		WaybillThreads recording = new WaybillThreads() {
			@Override
			public Thread newThread(String name, Runnable task) {
				created.add(name);
				return super.newThread(name, task);
			}
		};
		this.runner.withBean(WaybillThreads.class, () -> recording).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(WaybillThreads.class)).isSameAs(recording);
			assertThat(created).contains("waybill-relay-0", "waybill-relay-settler", "waybill-outbox-listener");
		});
	}

	@Test
	void theRelayStopsBeforeTheListenerAndAfterTheConsumersPhase() {
		this.runner.run((context) -> {
			int relay = context.getBean(Relay.class).getPhase();
			int listener = context.getBean(PostgresNotificationListener.class).getPhase();
			assertThat(relay).isEqualTo(WaybillPhases.RELAY).isGreaterThan(listener);
			assertThat(WaybillPhases.CONSUMERS).isGreaterThan(WaybillPhases.RETENTION).isGreaterThan(relay);
			// after Spring Boot's graceful web server shutdown (DEFAULT_PHASE - 1024 and - 2048)
			assertThat(relay).isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
		});
	}

}
