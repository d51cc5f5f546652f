package dev.resilience.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a free loopback port before a Redis server, which can hold back what the server
 * sends: Redis runs each command at once, and its reply comes back late, as after a lost packet or
 * a stalled network. Each direction of each connection is copied by a thread of its own.
 */
final class DelayingProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile long replyDelayMillis;

	DelayingProxy(int targetPort) throws IOException {
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.targetPort = targetPort;
		daemon("delaying-proxy", this::accept);
	}

	int port() {
		return this.listener.getLocalPort();
	}

	/** Holds back each piece of the server's replies this long from now on; zero to stop. */
	void delayReplies(Duration delay) {
		this.replyDelayMillis = delay.toMillis();
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			try {
				Socket client = this.listener.accept();
				Socket server = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				this.sockets.add(client);
				this.sockets.add(server);
				daemon("delaying-proxy-request", () -> copy(client, server, false));
				daemon("delaying-proxy-reply", () -> copy(server, client, true));
			}
			catch (IOException ex) {
				return; // closed
			}
		}
	}

	private void copy(Socket from, Socket to, boolean replies) {
		byte[] buffer = new byte[8192];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				long delay = replies ? this.replyDelayMillis : 0;
				if (delay > 0) {
					Thread.sleep(delay);
				}
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException ex) {
			// a socket closed: the connection is over
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.listener.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

}
