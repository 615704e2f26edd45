package dev.waybill.console.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The operations console's settings ({@code waybill.admin.*}).
 *
 * @since 0.1
 */
@ConfigurationProperties("waybill.admin")
public class WaybillAdminProperties {

	/**
	 * Whether the Actuator endpoint 'waybill' offers its write operations (redrive, delete, discard).
	 * Off by default: the endpoint and the page are read-only.
	 */
	private boolean writeEnabled;

	/**
	 * Whether GET /waybill redirects to the console page (served from the jar at /waybill/index.html).
	 */
	private boolean pageEnabled = true;

	public boolean isWriteEnabled() {
		return this.writeEnabled;
	}

	public void setWriteEnabled(boolean writeEnabled) {
		this.writeEnabled = writeEnabled;
	}

	public boolean isPageEnabled() {
		return this.pageEnabled;
	}

	public void setPageEnabled(boolean pageEnabled) {
		this.pageEnabled = pageEnabled;
	}

}
