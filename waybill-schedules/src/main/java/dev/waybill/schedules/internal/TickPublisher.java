package dev.waybill.schedules.internal;

import java.util.UUID;
import java.util.function.Consumer;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.schedules.ScheduleTick;
import dev.waybill.schedules.ScheduledMessages;

/**
 * The publisher a tick's {@link ScheduledMessages} gets: the application's, adding the schedule
 * and tick headers to every message.
 */
final class TickPublisher implements OutboxPublisher {

	private final OutboxPublisher delegate;

	private final ScheduleTick tick;

	TickPublisher(OutboxPublisher delegate, ScheduleTick tick) {
		this.delegate = delegate;
		this.tick = tick;
	}

	@Override
	public UUID publish(Object message, Consumer<PublishOptions> options) {
		return this.delegate.publish(message, options.andThen(this::headers));
	}

	@Override
	public UUID send(String destination, Object message, Consumer<PublishOptions> options) {
		return this.delegate.send(destination, message, options.andThen(this::headers));
	}

	private void headers(PublishOptions options) {
		options.header(ScheduleTick.SCHEDULE_HEADER, this.tick.schedule())
			.header(ScheduleTick.TICK_HEADER, this.tick.scheduledAt().toString());
	}

}
