package dev.waybill.outbox.rabbit.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * Records what some loggers log, from every thread, while it is open: it lowers their level (the
 * test configuration silences the RabbitMQ client and the transport) and attaches an appender;
 * {@link #close()} puts both back.
 */
public final class CapturedLogs implements AutoCloseable {

	private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

	private final Map<Logger, Level> levels = new LinkedHashMap<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing();
			CapturedLogs.this.events.add(event);
		}

	};

	private CapturedLogs(Level level, String... loggerNames) {
		this.appender.setName("captured-logs");
		this.appender.start();
		for (String name : loggerNames) {
			Logger logger = (Logger) LoggerFactory.getLogger(name);
			this.levels.put(logger, logger.getLevel());
			logger.setLevel(level);
			logger.addAppender(this.appender);
		}
	}

	/**
	 * Starts capturing.
	 * @param level the lowest level to record
	 * @param loggerNames the loggers, each with its descendants
	 * @return the capture; close it to stop
	 */
	public static CapturedLogs capture(Level level, String... loggerNames) {
		return new CapturedLogs(level, loggerNames);
	}

	/**
	 * Returns the events recorded so far.
	 * @return the events in order
	 */
	public List<ILoggingEvent> events() {
		return new ArrayList<>(this.events);
	}

	/**
	 * Returns the events recorded so far at a level or above.
	 * @param level the level
	 * @return the events in order
	 */
	public List<ILoggingEvent> atLeast(Level level) {
		return this.events.stream().filter((event) -> event.getLevel().isGreaterOrEqual(level)).toList();
	}

	/**
	 * Describes events one a line, with the class and message of a throwable, for assertion
	 * messages.
	 * @param events the events
	 * @return the description
	 */
	public static String describe(List<ILoggingEvent> events) {
		StringBuilder text = new StringBuilder();
		for (ILoggingEvent event : events) {
			text.append(event.getLevel()).append(' ').append(event.getLoggerName()).append(" - ")
				.append(event.getFormattedMessage());
			if (event.getThrowableProxy() != null) {
				text.append(" [").append(event.getThrowableProxy().getClassName()).append(": ")
					.append(event.getThrowableProxy().getMessage()).append(']');
			}
			text.append('\n');
		}
		return text.toString();
	}

	@Override
	public void close() {
		this.levels.forEach((logger, level) -> {
			logger.detachAppender(this.appender);
			logger.setLevel(level);
		});
		this.appender.stop();
	}

}
