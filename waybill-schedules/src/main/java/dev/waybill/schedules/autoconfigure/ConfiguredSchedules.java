package dev.waybill.schedules.autoconfigure;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.ClassUtils;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleTick;
import dev.waybill.schedules.ScheduledMessages;
import dev.waybill.schedules.autoconfigure.WaybillSchedulesProperties.ScheduleProperties;

/**
 * Builds the schedules declared under {@code waybill.schedules.<name>.*}, checking each value at
 * start-up: an invalid one fails the start-up naming the property, the value and the fix.
 */
final class ConfiguredSchedules {

	private ConfiguredSchedules() {
	}

	static List<Schedule> build(Map<String, ScheduleProperties> declared, MessageSerializer serializer,
			BeanFactory beans, @Nullable ClassLoader classLoader) {
		List<Schedule> schedules = new ArrayList<>();
		declared.forEach((name, properties) -> schedules.add(build(name, properties, serializer, beans, classLoader)));
		return schedules;
	}

	private static Schedule build(String name, ScheduleProperties properties, MessageSerializer serializer,
			BeanFactory beans, @Nullable ClassLoader classLoader) {
		String prefix = WaybillSchedulesProperties.SCHEDULES_PREFIX + "." + name + ".";
		if (name.isBlank() || name.length() > Schedule.MAX_NAME_LENGTH) {
			throw new InvalidConfigurationPropertyValueException(WaybillSchedulesProperties.SCHEDULES_PREFIX, name,
					"A schedule name must be 1 to " + Schedule.MAX_NAME_LENGTH + " characters.");
		}
		String cron = properties.getCron();
		if (cron == null || cron.isBlank()) {
			throw new InvalidConfigurationPropertyValueException(prefix + "cron", cron,
					"A schedule needs a cron expression. Set " + prefix + "cron to e.g. '0 0 2 * * *' (six fields, "
							+ "seconds first) or a macro such as '@hourly'.");
		}
		CronExpression expression;
		try {
			expression = CronExpression.parse(cron);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(prefix + "cron", cron, "It is not a valid cron "
					+ "expression (" + ex.getMessage() + "). Spring cron expressions have six fields, seconds "
					+ "first, e.g. '0 */5 * * * *' for every five minutes, or are a macro such as '@daily'.");
		}
		ZoneId zone;
		try {
			zone = ZoneId.of(properties.getZone());
		}
		catch (DateTimeException ex) {
			throw new InvalidConfigurationPropertyValueException(prefix + "zone", properties.getZone(),
					"It is not a time zone id (" + ex.getMessage() + "). Use a region id such as 'Europe/Paris' "
							+ "or 'UTC'.");
		}
		if (properties.getMaxMissedTicks() < 1 || properties.getMaxMissedTicks() > Schedule.MAX_MISSED_TICKS_LIMIT) {
			throw new InvalidConfigurationPropertyValueException(prefix + "max-missed-ticks",
					properties.getMaxMissedTicks(), "It must be between 1 and " + Schedule.MAX_MISSED_TICKS_LIMIT + ".");
		}
		if (properties.getMisfireThreshold().isNegative()) {
			throw new InvalidConfigurationPropertyValueException(prefix + "misfire-threshold",
					properties.getMisfireThreshold(), "It must not be negative; set a duration such as '10s'.");
		}
		String store = properties.getStore();
		if (!Schedule.EVERY_STORE.equals(store)) {
			try {
				WaybillStore.checkName(store);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(prefix + "store", store,
						ex.getMessage() + ", or '" + Schedule.EVERY_STORE + "' for every store.");
			}
		}
		ScheduledMessages messages = messages(prefix, properties, serializer, beans, classLoader);
		return new Schedule(name, expression, zone, properties.getMissedTicks(), properties.getMaxMissedTicks(),
				properties.getMisfireThreshold(), messages, store);
	}

	private static ScheduledMessages messages(String prefix, ScheduleProperties properties, MessageSerializer serializer,
			BeanFactory beans, @Nullable ClassLoader classLoader) {
		String bean = properties.getBean();
		String type = properties.getMessageType();
		if ((bean == null) == (type == null)) {
			throw new InvalidConfigurationPropertyValueException(prefix + "message-type", type,
					"Set exactly one of " + prefix + "message-type (a message class, with " + prefix + "payload) and "
							+ prefix + "bean (the name of a ScheduledMessages bean).");
		}
		if (bean != null) {
			try {
				return beans.getBean(bean, ScheduledMessages.class);
			}
			catch (BeansException ex) {
				throw new InvalidConfigurationPropertyValueException(prefix + "bean", bean,
						"No ScheduledMessages bean of that name (" + ex.getMessage() + ").");
			}
		}
		Class<?> messageClass;
		try {
			messageClass = ClassUtils.forName(type, classLoader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			throw new InvalidConfigurationPropertyValueException(prefix + "message-type", type,
					"No such class. Give the fully qualified name of the message class, e.g. 'com.acme.ReportDue'.");
		}
		byte[] body;
		try {
			body = serializer.serialize(properties.getPayload());
			serializer.deserialize(body, messageClass);
		}
		catch (Exception ex) {
			throw new InvalidConfigurationPropertyValueException(prefix + "payload", properties.getPayload(),
					"It cannot be read as a " + type + " (" + ex.getMessage() + ").");
		}
		return new PayloadMessages(serializer, body, messageClass, properties.getDestination(),
				properties.getRoutingKey());
	}

	/**
	 * Publishes a fresh message read from the configured payload at each tick.
	 */
	private record PayloadMessages(MessageSerializer serializer, byte[] body, Class<?> type,
			@Nullable String destination, String routingKey) implements ScheduledMessages {

		@Override
		public void publish(ScheduleTick tick, OutboxPublisher publisher) {
			Object message;
			try {
				message = this.serializer.deserialize(this.body, this.type);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Cannot build the message of schedule '" + tick.schedule() + "'", ex);
			}
			if (this.destination != null) {
				publisher.send(this.destination, message, (options) -> options.routingKey(this.routingKey));
			}
			else {
				publisher.publish(message, (options) -> options.routingKey(this.routingKey));
			}
		}

	}

}
