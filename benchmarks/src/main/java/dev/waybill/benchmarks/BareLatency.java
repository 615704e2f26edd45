package dev.waybill.benchmarks;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

/**
 * The floor under Waybill's commit-to-confirm figure: a bare publisher at the same offered rate
 * under the same write load, without the outbox. An open-loop generator on
 * {@link Latency#SENDERS} threads runs, for each send, the same business transaction (inserting
 * its row, committed) and then publishes a persistent 1 KiB message on one confirm-mode channel
 * (as a relay worker does); each message's latency runs from its commit to the confirm that
 * covers it. So PostgreSQL's commit flushes compete with the broker here as they do under
 * Waybill, and only what the outbox adds is left out.
 */
final class BareLatency {

	private BareLatency() {
	}

	/**
	 * Measures at one rate.
	 * @param connection the connection to publish on
	 * @param exchange the exchange, bound to a queue
	 * @param rate messages per second offered
	 * @param warmUpSeconds seconds published but not measured
	 * @param seconds seconds measured
	 * @param businessTransaction runs and commits send {@code i}'s business transaction, without the outbox
	 * @return the sorted latencies in microseconds
	 */
	static long[] measure(Connection connection, String exchange, int rate, int warmUpSeconds, int seconds,
			LongConsumer businessTransaction) throws IOException, InterruptedException {
		Channel channel = connection.createChannel();
		try {
			channel.confirmSelect();
			ConcurrentNavigableMap<Long, Long> unconfirmed = new ConcurrentSkipListMap<>();
			Map<Long, Long> latencies = new ConcurrentHashMap<>();
			channel.addConfirmListener((seqNo, multiple) -> confirmed(unconfirmed, latencies, seqNo, multiple),
					(seqNo, multiple) -> confirmed(unconfirmed, latencies, seqNo, multiple));
			long measureFrom = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmUpSeconds);
			long total = (long) rate * (warmUpSeconds + seconds);
			new OpenLoopGenerator(Latency.SENDERS).run(rate, total, (index) -> {
				businessTransaction.accept(index);
				long committedAt = System.nanoTime();
				synchronized (channel) {
					long seqNo = channel.getNextPublishSeqNo();
					unconfirmed.put(seqNo, (committedAt - measureFrom >= 0) ? committedAt : -1);
					try {
						channel.basicPublish(exchange, "", true, ConfirmedPublisher.properties(), BenchOrder.json(index));
					}
					catch (IOException ex) {
						throw new IllegalStateException("Publish failed", ex);
					}
				}
			});
			if (!channel.waitForConfirms(TimeUnit.MINUTES.toMillis(2))) {
				throw new IllegalStateException("The broker nacked a message");
			}
			return latencies.values().stream().mapToLong(Long::longValue).sorted().toArray();
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("Confirms still missing after 2 minutes", ex);
		}
		finally {
			try {
				channel.abort();
			}
			catch (IOException | RuntimeException ex) {
				// closed anyway
			}
		}
	}

	private static void confirmed(ConcurrentNavigableMap<Long, Long> unconfirmed, Map<Long, Long> latencies, long seqNo,
			boolean multiple) {
		long now = System.nanoTime();
		Map<Long, Long> settled = multiple ? unconfirmed.headMap(seqNo, true) : Map.of(seqNo, unconfirmed.getOrDefault(seqNo, -1L));
		settled.forEach((seq, sentAt) -> {
			if (sentAt >= 0) {
				latencies.put(seq, TimeUnit.NANOSECONDS.toMicros(now - sentAt));
			}
		});
		if (multiple) {
			settled.clear();
		}
		else {
			unconfirmed.remove(seqNo);
		}
	}

}
