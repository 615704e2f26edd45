package dev.waybill.outbox.rabbit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import com.rabbitmq.client.Channel;

import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;

/**
 * Handles a batch on a consumer's lane ({@link DeliveryProcessor#processBatch}) and settles each
 * delivery after the batch's outcome committed. When the database is unavailable, the deliveries not
 * recorded are tried again in place after a pause when partitioned by ordering key (a requeued
 * delivery would come back behind its key's later ones), else returned to the queue after a pause.
 * When stopping, or when the channel is closed, deliveries not yet handled are left
 * unacknowledged when partitioned by ordering key (the broker returns them, in order, when the
 * channel closes), else returned to the queue.
 *
 * @since 0.1
 */
final class BatchSettlement implements Consumer<List<HeldDelivery>> {

	private final InboxConsumer consumer;

	private final DeliveryProcessor processor;

	private final RecordingOutageLog outageLog;

	BatchSettlement(InboxConsumer consumer, DeliveryProcessor processor, RecordingOutageLog outageLog) {
		this.consumer = consumer;
		this.processor = processor;
		this.outageLog = outageLog;
	}

	@Override
	public void accept(List<HeldDelivery> batch) {
		Channel channel = this.consumer.getChannel();
		String queue = this.consumer.queue();
		boolean partitionByOrderingKey = this.consumer.partitionByOrderingKey();
		List<HeldDelivery> remaining = batch;
		while (!remaining.isEmpty() && channel.isOpen()) {
			long startedAt = System.nanoTime();
			if (this.consumer.stopping()) {
				if (!partitionByOrderingKey) {
					for (HeldDelivery held : remaining) {
						Settlement.quietly(queue, () -> channel.basicReject(held.tag(), true));
					}
				}
				return;
			}
			List<InboxDelivery> deliveries = new ArrayList<>(remaining.size());
			for (HeldDelivery held : remaining) {
				deliveries.add(new InboxDelivery(held.registration(), held.message()));
			}
			List<DeliveryResult> results = this.processor.processBatch(deliveries);
			if (results.stream().anyMatch(DeliveryResult::acknowledge)) {
				this.outageLog.recorded(startedAt);
			}
			if (this.consumer.settlesInOrder() && remaining.size() > 1
					&& results.stream().allMatch(DeliveryResult::acknowledge)) {
				// The channel's one lane settled every earlier delivery: one frame acknowledges the batch.
				long last = remaining.get(remaining.size() - 1).tag();
				Settlement.quietly(queue, () -> channel.basicAck(last, true));
				return;
			}
			List<HeldDelivery> again = new ArrayList<>();
			RuntimeException outage = null;
			for (int i = 0; i < remaining.size(); i++) {
				HeldDelivery held = remaining.get(i);
				DeliveryResult result = results.get(i);
				if (result.acknowledge()
						|| (result.unrecordable() && Settlement.toErrorQueue(channel, held, result.failure()))) {
					Settlement.quietly(queue, () -> channel.basicAck(held.tag(), false));
				}
				else {
					again.add(held);
					outage = (outage != null) ? outage : result.failure();
				}
			}
			if (again.isEmpty()) {
				return;
			}
			String reason = RecordingFailureReason.of(outage);
			this.outageLog.failed("Waybill could not record " + again.size() + " deliveries on " + queue
					+ (partitionByOrderingKey ? ", trying them again in place (the queue is partitioned by ordering "
							+ "key, and a requeued delivery would lose its place): " : ", returning them to the queue: ")
					+ reason, reason);
			Settlement.pause();
			if (!partitionByOrderingKey) {
				for (HeldDelivery held : again) {
					Settlement.quietly(queue, () -> channel.basicNack(held.tag(), false, true));
				}
				return;
			}
			remaining = again;
		}
	}

}
