package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;

/**
 * The relay's broker outage, as its circuit breaker reports it: one warning when the circuit opens,
 * the failed probes at debug, an info line when it closes, and the listener told every change.
 *
 * @since 0.1
 */
class BrokerOutageLogTests {

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(Relay.class);

	private final List<CircuitState> told = new CopyOnWriteArrayList<>();

	private final BrokerOutageLog log = new BrokerOutageLog("relay-1", Duration.ofSeconds(5), new RelayListener() {

		@Override
		public void circuitChanged(CircuitState state) {
			BrokerOutageLogTests.this.told.add(state);
		}

	});

	@BeforeEach
	void attach() {
		this.appender.start();
		this.logger.addAppender(this.appender);
		this.logger.setLevel(Level.DEBUG);
	}

	@AfterEach
	void detach() {
		this.logger.detachAppender(this.appender);
		this.logger.setLevel(null);
	}

	@Test
	void anOutageIsOneWarningItsProbesDebugLinesAndItsEndAnInfoLine() {
		this.log.brokerFailed("connection refused");
		this.log.circuitChanged(CircuitState.OPEN);
		this.log.circuitChanged(CircuitState.HALF_OPEN);
		this.log.circuitChanged(CircuitState.OPEN);
		this.log.circuitChanged(CircuitState.HALF_OPEN);
		this.log.circuitChanged(CircuitState.CLOSED);

		assertThat(this.appender.list).extracting(ILoggingEvent::getLevel)
			.containsExactly(Level.WARN, Level.DEBUG, Level.DEBUG, Level.DEBUG, Level.INFO);
		assertThat(this.appender.list.get(0).getFormattedMessage()).isEqualTo("Waybill relay relay-1: broker unavailable "
				+ "(connection refused), circuit open; claims pause for PT5S between probes and no delivery attempt is counted");
		assertThat(this.appender.list.get(1).getFormattedMessage()).isEqualTo("Waybill relay relay-1: probing the broker");
		assertThat(this.appender.list.get(2).getFormattedMessage())
			.isEqualTo("Waybill relay relay-1: probe failed, circuit open again (connection refused)");
		assertThat(this.appender.list.get(4).getFormattedMessage())
			.startsWith("Waybill relay relay-1: broker available again, circuit closed after PT")
			.endsWith("S open");
		assertThat(this.told).containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.OPEN,
				CircuitState.HALF_OPEN, CircuitState.CLOSED);
		assertThat(this.log.lastFailure()).isEqualTo("connection refused");
	}

	@Test
	void aCircuitClosedWithoutAnOutageSaysSoWithoutADuration() {
		this.log.circuitChanged(CircuitState.CLOSED);

		assertThat(this.appender.list).extracting(ILoggingEvent::getFormattedMessage)
			.containsExactly("Waybill relay relay-1: broker available again, circuit closed");
	}

}
