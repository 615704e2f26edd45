package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One outage, one story: a warning when it begins, one per minute it lasts, debug between, info
 * when it ends; on a clock the test moves.
 *
 * @since 0.1
 */
class OutageLoggerTests {

	private static final String CATEGORY = OutageLoggerTests.class.getName();

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logback = (Logger) LoggerFactory.getLogger(CATEGORY);

	private final AtomicLong clock = new AtomicLong(TimeUnit.HOURS.toNanos(1));

	private final OutageLogger<String> outage = new OutageLogger<>(LogFactory.getLog(CATEGORY), new Words(),
			this.clock::get);

	@BeforeEach
	void attach() {
		this.appender.start();
		this.logback.addAppender(this.appender);
		this.logback.setLevel(Level.DEBUG);
	}

	@AfterEach
	void detach() {
		this.logback.detachAppender(this.appender);
		this.logback.setLevel(null);
	}

	@Test
	void anOutageWarnsWhenItBeginsOnceAMinuteWhileItLastsAndTellsWhenItEnds() {
		this.outage.failed("refused");
		at(30, "refused");
		at(61, "timed out");
		at(90, "refused");
		this.clock.set(start() + TimeUnit.SECONDS.toNanos(95));
		assertThat(this.outage.recovered(this.outage.now())).isTrue();

		assertThat(this.appender.list).extracting(ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
			.containsExactly(tuple(Level.WARN, "began: refused"), tuple(Level.DEBUG, "again: refused"),
					tuple(Level.WARN, "still: timed out after PT1M1S, 3 failures"), tuple(Level.DEBUG, "again: refused"),
					tuple(Level.INFO, "ended after PT1M35S, 4 failures"));
		assertThat(this.appender.list.get(0).getThrowableProxy()).isNotNull();
		assertThat(this.appender.list.get(1).getThrowableProxy()).isNull();
		assertThat(this.outage.failingFor()).isNull();
	}

	@Test
	void aSuccessThatBeganBeforeTheOutageEndsNothing() {
		long startedBefore = this.outage.now() - 1;
		this.outage.failed("refused");

		assertThat(this.outage.recovered(startedBefore)).isFalse();
		assertThat(this.outage.failingFor()).isNotNull();
		assertThat(this.appender.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.WARN);
	}

	@Test
	void aSuccessWithoutAnOutageSaysNothing() {
		assertThat(this.outage.recovered(this.outage.now())).isFalse();
		assertThat(this.appender.list).isEmpty();
	}

	private void at(long secondsAfterTheStart, String failure) {
		this.clock.set(start() + TimeUnit.SECONDS.toNanos(secondsAfterTheStart));
		this.outage.failed(failure);
	}

	private static long start() {
		return TimeUnit.HOURS.toNanos(1);
	}

	private static final class Words implements OutageLogger.Wording<String> {

		@Override
		public String began(String failure) {
			return "began: " + failure;
		}

		@Override
		public @Nullable Throwable beganTrace(String failure) {
			return new IllegalStateException(failure);
		}

		@Override
		public String still(String failure, SharedOutage.Failure told) {
			return "still: " + failure + " after " + told.failingFor() + ", " + told.failures() + " failures";
		}

		@Override
		public String again(String failure) {
			return "again: " + failure;
		}

		@Override
		public String ended(SharedOutage.Ended ended) {
			return "ended after " + ended.lasted() + ", " + ended.failures() + " failures";
		}

	}

}
