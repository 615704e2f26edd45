package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.rabbitmq.client.Connection;

/**
 * (1) The broker's ceiling for what the relay does: a bare amqp-client publisher sends persistent
 * 1 KiB JSON bodies with {@code mandatory} to a durable fanout exchange bound to a durable queue,
 * with asynchronous confirms, on as many channels as the relay has workers, each with the relay's
 * window of unconfirmed messages. Messages/s from the first publish to the last confirm.
 */
final class BrokerCeiling implements Benchmark {

	static final String NAME = "broker";

	static final String FIGURE = "bare publisher, persistent 1 KiB, confirms";

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().brokerMessages();
		int channels = OutboxWiring.defaultRelaySettings().getWorkers();
		int window = OutboxWiring.confirmWindow();
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		Connection connection = context.register(context.rabbit().connect());
		ExecutorService publishers = Executors.newFixedThreadPool(channels);
		List<Double> rates = new ArrayList<>();
		try {
			for (int run = 1; run <= context.runs(); run++) {
				queue.purge();
				Timer timer = Timer.start();
				List<Future<?>> done = new ArrayList<>();
				for (int c = 0; c < channels; c++) {
					long first = (long) c * messages / channels;
					int count = (int) ((long) (c + 1) * messages / channels - first);
					done.add(publishers.submit(() -> {
						ConfirmedPublisher.publish(connection, queue.exchange(), "", first, count, window);
						return null;
					}));
				}
				for (Future<?> future : done) {
					future.get();
				}
				rates.add(timer.rate(messages));
				progress.report("run " + run + ": " + ResultTable.number(rates.get(rates.size() - 1)) + " msg/s");
				queue.purge();
			}
		}
		finally {
			publishers.shutdownNow();
		}
		return List.of(new Measurement(NAME, FIGURE, "msg/s", rates,
				messages + " msgs, " + channels + " channels x " + window + " unconfirmed"));
	}

}
