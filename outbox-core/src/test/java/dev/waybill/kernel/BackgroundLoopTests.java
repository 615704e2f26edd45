package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.WaybillThreads;

class BackgroundLoopTests {

	@Test
	void wakeEndsTheSleepAtOnce() throws InterruptedException {
		BlockingQueue<Long> passes = new ArrayBlockingQueue<>(10);
		BackgroundLoop loop = loop(() -> {
			passes.add(System.nanoTime());
			return Duration.ofMinutes(1);
		}, Duration.ofMinutes(1));
		loop.start(WaybillThreads.platform());
		try {
			assertThat(passes.poll(5, TimeUnit.SECONDS)).isNotNull();
			long woken = System.nanoTime();
			loop.wake();
			Long second = passes.poll(5, TimeUnit.SECONDS);
			assertThat(second).isNotNull();
			assertThat(Duration.ofNanos(second - woken)).isLessThan(Duration.ofSeconds(5));
		}
		finally {
			loop.stop();
		}
	}

	@Test
	void aFailingPassIsRetriedAfterTheFailureWait() throws InterruptedException {
		AtomicInteger passes = new AtomicInteger();
		CountDownLatch third = new CountDownLatch(3);
		BackgroundLoop loop = loop(() -> {
			passes.incrementAndGet();
			third.countDown();
			throw new IllegalStateException("database down");
		}, Duration.ofMillis(10));
		loop.start(WaybillThreads.platform());
		try {
			assertThat(third.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(loop.isRunning()).isTrue();
		}
		finally {
			loop.stop();
		}
	}

	@Test
	void aPassThatThrowsAnErrorIsRetriedAsWell() throws InterruptedException {
		AtomicInteger passes = new AtomicInteger();
		CountDownLatch second = new CountDownLatch(2);
		BackgroundLoop loop = loop(() -> {
			second.countDown();
			if (passes.incrementAndGet() == 1) {
				throw new NoClassDefFoundError("com/acme/ReportDue");
			}
			return Duration.ofMinutes(1);
		}, Duration.ofMillis(10));
		loop.start(WaybillThreads.platform());
		try {
			assertThat(second.await(5, TimeUnit.SECONDS)).as("a pass after the Error").isTrue();
		}
		finally {
			loop.stop();
		}
	}

	@Test
	void stopWaitsForThePassAndTellsItToEndEarly() throws InterruptedException {
		CountDownLatch inPass = new CountDownLatch(1);
		AtomicBoolean sawStop = new AtomicBoolean();
		AtomicReference<BackgroundLoop> self = new AtomicReference<>();
		BackgroundLoop loop = loop(() -> {
			inPass.countDown();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (self.get().shouldContinue() && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			sawStop.set(!self.get().shouldContinue());
			return Duration.ofMinutes(1);
		}, Duration.ofMinutes(1));
		self.set(loop);
		loop.start(WaybillThreads.platform());
		assertThat(inPass.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(loop.shouldContinue()).as("a caller on its own thread is never cut short").isTrue();
		loop.stop();
		assertThat(sawStop).isTrue();
		assertThat(loop.isRunning()).isFalse();
		assertThat(loop.shouldContinue()).isTrue();
	}

	private static BackgroundLoop loop(java.util.function.Supplier<Duration> pass, Duration retry) {
		return new BackgroundLoop("test-loop", pass, retry, LogFactory.getLog(BackgroundLoopTests.class),
				"Test pass failed");
	}

}
