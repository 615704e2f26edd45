package dev.waybill.outbox.autoconfigure;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The {@code DataSource} of the relay's {@code LISTEN} connection when it is not the
 * application's: a bean marked {@link WaybillNotificationsDataSource}, else one opened from
 * {@code waybill.notifications.url}.
 */
final class NotificationsDataSource {

	private NotificationsDataSource() {
	}

	/**
	 * @return the DataSource to listen on, or {@literal null} for the application's
	 */
	static @Nullable DataSource of(NotificationProperties properties, @Nullable DataSource marked,
			Environment environment) {
		if (marked != null) {
			return marked;
		}
		String url = properties.getUrl();
		if (!StringUtils.hasText(url)) {
			return null;
		}
		if (!url.startsWith("jdbc:postgresql:")) {
			throw new InvalidConfigurationPropertyValueException("waybill.notifications.url", url,
					"The URL must be a PostgreSQL JDBC URL such as jdbc:postgresql://db-primary:5432/orders, "
							+ "reaching PostgreSQL directly or through a session-mode pool.");
		}
		PGSimpleDataSource direct = new PGSimpleDataSource();
		try {
			direct.setURL(url);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("waybill.notifications.url", url,
					"The URL cannot be read: " + ex.getMessage());
		}
		direct.setUser(or(properties.getUsername(), environment.getProperty("spring.datasource.username")));
		direct.setPassword(or(properties.getPassword(), environment.getProperty("spring.datasource.password")));
		if (!url.contains("ApplicationName=")) {
			direct.setApplicationName("waybill-notifications");
		}
		return direct;
	}

	private static @Nullable String or(@Nullable String value, @Nullable String fallback) {
		return StringUtils.hasText(value) ? value : fallback;
	}

}
