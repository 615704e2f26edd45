package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The renewal of held leases: a renewal that fails is logged at WARN, except one not tried because
 * its store waits for its database, whose outage the store's claim log tells already.
 */
class LeasesTests {

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(Leases.class);

	private final AtomicReference<RuntimeException> renewal = new AtomicReference<>();

	private final Leases leases = new Leases((OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(),
			new Class<?>[] { OutboxStore.class }, (proxy, method, args) -> {
				throw this.renewal.get();
			}), Duration.ofSeconds(30));

	@BeforeEach
	void attach() {
		this.appender.start();
		this.logger.addAppender(this.appender);
		Instant now = Instant.now();
		this.leases.hold(List.of(new ClaimedScope(UUID.randomUUID(), now, 0, "relay/0/1@acme", now.plusSeconds(30), List.of())));
	}

	@AfterEach
	void detach() {
		this.logger.detachAppender(this.appender);
	}

	@Test
	void aRenewalThatFailsIsAWarning() {
		this.renewal.set(new IllegalStateException("connection reset"));
		this.leases.renew();
		assertThat(warnings()).singleElement().asString().contains("could not renew the leases of 1 scope(s)");
	}

	@Test
	void aRenewalNotTriedForAnUnavailableStoreIsNoWarning() {
		this.renewal.set(new StoreUnavailableException("acme"));
		this.leases.renew();
		assertThat(warnings()).isEmpty();
	}

	private List<String> warnings() {
		return this.appender.list.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

}
