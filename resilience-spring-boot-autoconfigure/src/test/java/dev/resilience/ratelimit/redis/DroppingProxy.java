package dev.resilience.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port that counts the connections it accepts and either passes
 * them to a Redis server or closes each at once, as a Redis behind a broken load balancer (or one
 * whose {@code maxclients} is reached) does: the connection opens, then drops before any reply.
 */
final class DroppingProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final AtomicInteger accepted = new AtomicInteger();

	private volatile boolean dropping;

	/**
	 * Starts a proxy that drops every connection.
	 */
	DroppingProxy() throws IOException {
		this(-1);
		this.dropping = true;
	}

	/**
	 * Starts a proxy that passes connections to a server on a loopback port until told to drop them.
	 */
	DroppingProxy(int targetPort) throws IOException {
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.targetPort = targetPort;
		daemon("dropping-proxy", this::accept);
	}

	int port() {
		return this.listener.getLocalPort();
	}

	/** How many connections it accepted so far. */
	int accepted() {
		return this.accepted.get();
	}

	/** From now on, closes the connections it passed and every new one at once. */
	void drop() throws IOException {
		this.dropping = true;
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			try {
				Socket client = this.listener.accept();
				this.accepted.incrementAndGet();
				if (this.dropping) {
					client.close();
					continue;
				}
				Socket server = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				this.sockets.add(client);
				this.sockets.add(server);
				daemon("dropping-proxy-request", () -> copy(client, server));
				daemon("dropping-proxy-reply", () -> copy(server, client));
			}
			catch (IOException ex) {
				// closed, or the server refused: the next connection is tried
			}
		}
	}

	private static void copy(Socket from, Socket to) {
		byte[] buffer = new byte[8192];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException ex) {
			// a socket closed: the connection is over
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
