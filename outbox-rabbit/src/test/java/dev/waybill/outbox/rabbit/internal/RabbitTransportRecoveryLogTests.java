package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.TransportException;

/**
 * What the publishing connection logs while it recovers from a broker that went away: warnings
 * without stack traces, no errors.
 */
class RabbitTransportRecoveryLogTests {

	@Test
	void aLostConnectionIsToldWhenItIsLostNotAtTheFirstRecoveryAttempt() throws Exception {
		try (TcpProxy proxy = TestRabbit.get().proxy();
				RabbitTransport transport = transport(proxy, Duration.ofSeconds(60));
				CapturedLogs logs = capture()) {
			transport.probe();
			proxy.cut();
			// The client makes its first recovery attempt a recovery interval after the loss.
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> logs.atLeast(Level.WARN)
					.stream()
					.anyMatch((event) -> event.getFormattedMessage()
						.startsWith("Waybill's connection to 127.0.0.1:" + proxy.port() + " is lost; recovering: ")));
		}
	}

	@Test
	void failedRecoveryAttemptsAreWarningsWithoutStackTraces() throws Exception {
		try (TcpProxy proxy = TestRabbit.get().proxy();
				RabbitTransport transport = transport(proxy, Duration.ofMillis(100));
				CapturedLogs logs = capture()) {
			transport.probe();
			// the proxy accepts each recovery attempt and closes it, as one in front of a stopped broker does
			proxy.cut();
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> logs.events()
					.stream()
					.anyMatch((event) -> event.getFormattedMessage().contains("recover")
							&& event.getLevel().isGreaterOrEqual(Level.WARN) && !event.getFormattedMessage().contains("is lost")));
			proxy.restore();
			Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreException(TransportException.class).until(() -> {
				transport.probe();
				return true;
			});
			List<ILoggingEvent> errors = logs.atLeast(Level.ERROR);
			assertThat(errors).as("errors logged:\n%s", CapturedLogs.describe(errors)).isEmpty();
			assertThat(logs.atLeast(Level.WARN)).allSatisfy((event) -> assertThat(event.getThrowableProxy()).isNull());
		}
	}

	private static RabbitTransport transport(TcpProxy proxy, Duration recoveryInterval) {
		return TestRabbit.get().transport(proxy).recoveryInterval(recoveryInterval).build();
	}

	private static CapturedLogs capture() {
		return CapturedLogs.capture(Level.INFO, "com.rabbitmq.client", "dev.waybill.outbox.rabbit");
	}

}
