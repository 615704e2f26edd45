package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.rabbit.test.CapturedLogs;

/**
 * A queue's consumer threads that fail to record their deliveries at the same moment tell the
 * outage once: before, a thread that lost the race to begin it read the reminder time of no outage
 * and added "still cannot record ... after PT0S" to the first warning.
 */
class RecordingOutageLogTests {

	private static final int THREADS = 8;

	private static final int OUTAGES = 300;

	@Test
	void anOutageIsToldWhenItBeginsOnceAMinuteWhileItLastsAndWhenItEnds() {
		AtomicLong clock = new AtomicLong(TimeUnit.HOURS.toNanos(1));
		RecordingOutageLog log = new RecordingOutageLog("orders", clock::get);
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, RabbitReceiveEndpoint.class.getName())) {
			log.failed("began", "refused");
			at(clock, 30, log);
			at(clock, 61, log);
			at(clock, 90, log);
			at(clock, 125, log);
			log.recorded(clock.get());
			at(clock, 200, log); // the next outage
			at(clock, 230, log);
			assertThat(logs.events()).extracting(ILoggingEvent::getFormattedMessage)
				.containsExactly("began",
						"Waybill still cannot record deliveries on orders after PT1M1S, 3 failed tries: refused",
						"Waybill still cannot record deliveries on orders after PT2M5S, 5 failed tries: refused",
						"Waybill records deliveries on orders again, after PT2M5S (5 failed tries)", "began");
		}
	}

	private static void at(AtomicLong clock, long secondsAfterTheStart, RecordingOutageLog log) {
		clock.set(TimeUnit.HOURS.toNanos(1) + TimeUnit.SECONDS.toNanos(secondsAfterTheStart));
		log.failed("began", "refused");
	}

	@Test
	void consumerThreadsFailingTogetherWarnOncePerOutage() throws Exception {
		RecordingOutageLog log = new RecordingOutageLog("orders");
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, RabbitReceiveEndpoint.class.getName())) {
			for (int outage = 0; outage < OUTAGES; outage++) {
				CyclicBarrier together = new CyclicBarrier(THREADS);
				List<Future<?>> failing = new ArrayList<>();
				for (int i = 0; i < THREADS; i++) {
					failing.add(threads.submit(() -> {
						together.await();
						log.failed("Waybill could not record deliveries on orders", "refused");
						return null;
					}));
				}
				for (Future<?> thread : failing) {
					thread.get();
				}
				log.recorded(System.nanoTime());
			}
			List<ILoggingEvent> warnings = logs.atLeast(Level.WARN);
			assertThat(warnings).as(CapturedLogs.describe(warnings.subList(0, Math.min(10, warnings.size()))))
				.hasSize(OUTAGES)
				.allSatisfy((event) -> assertThat(event.getFormattedMessage())
					.isEqualTo("Waybill could not record deliveries on orders"));
			assertThat(logs.events()).filteredOn((event) -> event.getLevel() == Level.INFO)
				.hasSize(OUTAGES)
				.allSatisfy((event) -> assertThat(event.getFormattedMessage())
					.startsWith("Waybill records deliveries on orders again, after PT")
					.endsWith("(" + THREADS + " failed tries)"));
		}
		finally {
			threads.shutdownNow();
		}
	}

}
