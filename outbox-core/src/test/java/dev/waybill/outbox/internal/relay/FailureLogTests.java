package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class FailureLogTests {

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(Settler.class);

	@BeforeEach
	void attach() {
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	@AfterEach
	void detach() {
		this.logger.detachAppender(this.appender);
	}

	@Test
	void logsTheFirstFailureOfADestinationAtWarnThenOncePerPeriodWithTheCountItKeptQuietAbout() {
		FailureLog log = new FailureLog(Duration.ofMillis(300));
		long started = System.nanoTime();
		log.warn("'orders'", "orders failed 1");
		log.warn("'orders'", "orders failed 2");
		log.warn("'orders'", "orders failed 3");
		log.warn("'billing'", "billing failed 1");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("inside one period").isLessThan(Duration.ofMillis(300));
		assertThat(this.appender.list).extracting(ILoggingEvent::getFormattedMessage)
			.containsExactly("orders failed 1", "billing failed 1");
		assertThat(this.appender.list).extracting(ILoggingEvent::getLevel).containsOnly(Level.WARN);

		Awaitility.await().pollDelay(Duration.ofMillis(350)).until(() -> true); // the period passes
		log.warn("'orders'", "orders failed 4");

		assertThat(this.appender.list).last().extracting(ILoggingEvent::getFormattedMessage)
			.isEqualTo("orders failed 4 [2 more failure(s) for 'orders' were not logged in the last 300ms]");
	}

}
