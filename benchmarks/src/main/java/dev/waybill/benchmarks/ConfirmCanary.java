package dev.waybill.benchmarks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

/**
 * A bare publisher sending one message at a steady low rate on a confirm-mode channel of its
 * own while a Waybill latency run goes on, noting each message's publish return to confirm: what
 * the broker gives any publisher under the load of that run, beside what it gives the relay's
 * messages (the relay's publish return to confirm). Where the two agree, the relay's stretch is
 * the broker's confirm under that load, not the relay's path; where the relay's is longer, the
 * difference is the relay's. Its messages go to the same exchange and queue as the relay's.
 */
final class ConfirmCanary implements AutoCloseable {

	private final Channel channel;

	private final Thread thread;

	private volatile boolean stopped;

	private final ConcurrentSkipListMap<Long, Long> unconfirmed = new ConcurrentSkipListMap<>();

	private final List<Long> micros = Collections.synchronizedList(new ArrayList<>());

	/**
	 * Starts publishing.
	 * @param connection the connection to publish on (not the relay's)
	 * @param exchange the exchange
	 * @param rate messages per second
	 */
	ConfirmCanary(Connection connection, String exchange, int rate) throws IOException {
		this.channel = connection.createChannel();
		this.channel.confirmSelect();
		this.channel.addConfirmListener(this::confirmed, this::confirmed);
		long period = TimeUnit.SECONDS.toNanos(1) / rate;
		this.thread = new Thread(() -> {
			long next = System.nanoTime();
			while (!this.stopped) {
				next += period;
				LockSupport.parkNanos(next - System.nanoTime());
				try {
					synchronized (this.unconfirmed) {
						long seqNo = this.channel.getNextPublishSeqNo();
						this.channel.basicPublish(exchange, "", true, ConfirmedPublisher.properties(), BenchOrder.json(seqNo));
						this.unconfirmed.put(seqNo, System.nanoTime());
					}
				}
				catch (IOException | RuntimeException ex) {
					return;
				}
			}
		}, "waybill-bench-confirm-canary");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void confirmed(long seqNo, boolean multiple) {
		long now = System.nanoTime();
		synchronized (this.unconfirmed) {
			Map<Long, Long> settled = multiple ? this.unconfirmed.headMap(seqNo, true)
					: this.unconfirmed.subMap(seqNo, true, seqNo, true);
			settled.values().forEach((at) -> this.micros.add(TimeUnit.NANOSECONDS.toMicros(now - at)));
			settled.clear();
		}
	}

	/**
	 * Stops publishing and returns the publish return to confirm of every confirmed message.
	 * @return sorted microseconds
	 */
	long[] stop() throws InterruptedException {
		this.stopped = true;
		this.thread.join();
		try {
			this.channel.waitForConfirms(TimeUnit.SECONDS.toMillis(30));
		}
		catch (java.util.concurrent.TimeoutException ex) {
			// reported as what was confirmed
		}
		synchronized (this.micros) {
			return this.micros.stream().mapToLong(Long::longValue).sorted().toArray();
		}
	}

	@Override
	public void close() {
		this.stopped = true;
		try {
			this.channel.abort();
		}
		catch (IOException | RuntimeException ex) {
			// closed anyway
		}
	}

}
